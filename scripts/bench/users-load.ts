import { apiClient, type ApiCall } from './http-client.js';

/** How a request found its vault: first request of the run, reopened after an eviction the server logged, or loaded. */
export type Arrival = 'first_touch' | 'reopen' | 'loaded';
export type OpKind = 'read' | 'search' | 'write' | 'changes' | 'health';

export interface Sample {
  kind: OpKind;
  arrival: Arrival;
  ms: number;
  status: number;
}

export interface AckedWrite {
  path: string;
  commit: string;
  marker: string;
}

/** What the run learnt about one user: the feed's commits in order and the writes the server acknowledged. */
export interface UserTrace {
  call: ApiCall;
  /** HEAD at the first request: the change feed is followed from here. */
  start?: string;
  cursor?: string;
  feed: string[];
  writes: AckedWrite[];
  busy: boolean;
}

/** The mix of a random user's requests, by cumulative weight. */
const MIX: [OpKind, number][] = [
  ['read', 0.55],
  ['search', 0.8],
  ['write', 0.92],
  ['changes', 0.97],
  ['health', 1],
];

function pickOp(): OpKind {
  const draw = Math.random();
  return MIX.find(([, upTo]) => draw < upTo)![0];
}

interface ChangeFeed {
  cursor: string;
  has_more: boolean;
  changes: { commit: string }[];
}

/** Follows a user's change feed from its cursor to the head, recording every commit it names. */
export async function pollChanges(trace: UserTrace): Promise<{ ms: number; status: number }> {
  let ms = 0;
  for (;;) {
    const reply = await trace.call<ChangeFeed>('GET', `/vault/changes?since=${trace.cursor}&limit=1000`);
    ms += reply.ms;
    if (reply.status !== 200) return { ms, status: reply.status };
    trace.feed.push(...reply.body.changes.map((c) => c.commit));
    trace.cursor = reply.body.cursor;
    if (!reply.body.has_more) return { ms, status: reply.status };
  }
}

export interface LoadOptions {
  url: string;
  keys: Map<string, string>;
  paths: string[];
  queries: string[];
  concurrency: number;
  until: () => boolean;
  /** True once the server logged an eviction of this user since its last request (consumed). */
  evicted: (user: string) => boolean;
  /** Each health answer's `memory` block, when the server reports one. */
  onMemory: (memory: unknown) => void;
}

/** Random users, random requests, `concurrency` at a time, until `until()`. */
export async function runLoad(options: LoadOptions): Promise<{ samples: Sample[]; traces: Map<string, UserTrace> }> {
  const users = [...options.keys.keys()];
  const traces = new Map<string, UserTrace>(
    users.map((u) => [u, { call: apiClient(options.url, options.keys.get(u)!), feed: [], writes: [], busy: false }]),
  );
  const samples: Sample[] = [];
  let writes = 0;
  const one = async (user: string, trace: UserTrace) => {
    const arrival: Arrival = trace.start === undefined ? 'first_touch' : options.evicted(user) ? 'reopen' : 'loaded';
    // The first request reads HEAD, where this user's change feed starts.
    const kind = arrival === 'first_touch' ? 'health' : pickOp();
    const { call } = trace;
    const random = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
    if (kind === 'health') {
      const reply = await call<{ git: { head: string }; memory?: unknown }>('GET', '/vault/health');
      if (reply.status === 200 && trace.start === undefined) trace.start = trace.cursor = reply.body.git.head;
      if (reply.body.memory !== undefined) options.onMemory(reply.body.memory);
      return samples.push({ kind, arrival, ms: reply.ms, status: reply.status });
    }
    if (kind === 'changes') return samples.push({ kind, arrival, ...(await pollChanges(trace)) });
    if (kind === 'read') {
      const reply = await call('GET', `/vault/page/${encodeURI(random(options.paths))}`);
      return samples.push({ kind, arrival, ms: reply.ms, status: reply.status });
    }
    if (kind === 'search') {
      const reply = await call('GET', `/vault/search?q=${encodeURIComponent(random(options.queries))}&limit=10`);
      return samples.push({ kind, arrival, ms: reply.ms, status: reply.status });
    }
    const path = random(options.paths);
    const marker = `bench-write-${user}-${writes++}`;
    const reply = await call<{ commit: string }>('POST', '/vault/page', { path, content: `# ${marker}\n\nWritten by the scale bench.\n` });
    if (reply.status < 300) trace.writes.push({ path, commit: reply.body.commit, marker });
    samples.push({ kind, arrival, ms: reply.ms, status: reply.status });
  };
  // One request per user at a time: the feed cursor and the first touch are per-user state.
  const worker = async () => {
    while (!options.until()) {
      const user = users[Math.floor(Math.random() * users.length)];
      const trace = traces.get(user)!;
      if (trace.busy) {
        await new Promise(setImmediate);
        continue;
      }
      trace.busy = true;
      try {
        await one(user, trace);
      } finally {
        trace.busy = false;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { samples, traces };
}
