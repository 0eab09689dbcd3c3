/**
 * Issue 18, live changes: how long after its commit a change reaches a waiting client, over
 * `GET /vault/events` (one stream, and eight at once) and `GET /vault/changes?wait=`, for API
 * writes and for edits made in the folder (goal: ≤ 1 s). The server runs in this process, so
 * the commit (heard by a `VaultRegistry.onCommit` listener registered first) and the arrival
 * of the event are read on one clock; HTTP is real, over loopback. Seed-42 vault of 1k pages
 * (`--pages 10000` for the 10k one). Also: how soon a revoked key's open stream is ended.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/log/logger.js';
import { startServer } from '../../../server/server.js';
import { benchAccounts } from '../bench-accounts.js';
import { BENCH_DIR, benchVault, summarize } from '../fixture.js';
import { SseReader } from '../sse-reader.js';

const USER = 'live';

function option(options: string[], name: string, fallback: number): number {
  const at = options.indexOf(`--${name}`);
  return at >= 0 ? Number(options[at + 1]) : fallback;
}

export default async function (options: string[]): Promise<Record<string, unknown>> {
  const rounds = option(options, 'rounds', 100);
  const { source } = benchVault(option(options, 'pages', 1000));
  const data = join(BENCH_DIR, 'run-live');
  rmSync(data, { recursive: true, force: true });
  const { keys, env } = await benchAccounts(data, [USER]);
  const dir = join(data, 'vaults', USER);
  cpSync(source, dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@x', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'Import');

  const config = loadConfig({ ...env, QUIRE_LOG_LEVEL: 'warn', QUIRE_INDEX_PERSIST_MS: '60000' }, { data, port: '0' });
  const server = await startServer(config, createLogger('warn'));
  const key = keys.get(USER)!;
  const headers = { authorization: `Bearer ${key}` };
  await server.services.vaults.get(USER);
  const committedAt = new Map<string, number>();
  server.services.vaults.onCommit(USER, (event) => void committedAt.set(event.commit, performance.now()));
  const write = async (path: string, content: string): Promise<string> => {
    const res = await fetch(`${server.url}/vault/page`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ path, content }),
    });
    if (!res.ok) throw new Error(`write ${res.status}: ${await res.text()}`);
    return (await res.json()).commit;
  };
  const head = () => server.services.vaults.loadedWorkspace(USER)!.vault.head;

  try {
    // One stream, API writes.
    const streams = [await SseReader.open(`${server.url}/vault/events`, headers)];
    await streams[0].next((e) => e.event === 'ready');
    const sseOne: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const commit = await write(`live/one-${i % 20}.md`, `round ${i}`);
      const event = await streams[0].next((e) => e.id === commit);
      sseOne.push(event.at - committedAt.get(commit)!);
    }

    // Eight streams of one user (the default cap): the latency of the last of the eight to hear it.
    for (let i = 1; i < 8; i++) streams.push(await SseReader.open(`${server.url}/vault/events`, headers));
    for (const s of streams) await s.next((e) => e.event === 'ready');
    const sseEight: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const commit = await write(`live/eight-${i % 20}.md`, `round ${i}`);
      const events = await Promise.all(streams.map((s) => s.next((e) => e.id === commit)));
      sseEight.push(Math.max(...events.map((e) => e.at)) - committedAt.get(commit)!);
    }
    for (const s of streams.slice(1)) s.close();

    // Folder edits: the watcher settles (QUIRE_WATCH_SETTLE_MS, _STABLE_MS) and commits; from that commit on.
    const folder: number[] = [];
    const saveToClient: number[] = [];
    for (let i = 0; i < Math.min(rounds, 20); i++) {
      const from = streams[0].events.length;
      const saved = performance.now();
      writeFileSync(join(dir, 'live', `folder-${i}.md`), `edited in the folder ${i}\n`);
      const event = await streams[0].next((e) => e.event === 'change' && e.data.includes(`folder-${i}.md`), 10_000, from);
      folder.push(event.at - committedAt.get(event.id!)!);
      saveToClient.push(event.at - saved);
    }
    streams[0].close();

    // Long-poll: asked first, the write made while it waits.
    const longPoll: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const asked = fetch(`${server.url}/vault/changes?since=${head()}&wait=30`, { headers }).then(async (res) => {
        const feed = await res.json();
        return { feed, at: performance.now() };
      });
      await sleep(5);
      const commit = await write(`live/poll-${i % 20}.md`, `round ${i}`);
      const { feed, at } = await asked;
      if (feed.changes[0]?.commit !== commit) throw new Error(`long-poll answered ${JSON.stringify(feed).slice(0, 200)}`);
      longPoll.push(at - committedAt.get(commit)!);
    }
    // Revocation: from revoking a key in the account store to its open stream's `failed` event
    // (the live connections poll the store's change stamp every 200 ms, then authenticate again).
    const revoked: number[] = [];
    for (let i = 0; i < Math.min(rounds, 20); i++) {
      const name = `revoked-${i}`;
      const { key: doomed } = await server.services.accounts.createKey({ user: USER, name, scope: 'read' });
      const stream = await SseReader.open(`${server.url}/vault/events`, { authorization: `Bearer ${doomed}` });
      await stream.next((e) => e.event === 'ready');
      const at = performance.now();
      await server.services.accounts.revokeKey(USER, name);
      revoked.push((await stream.next((e) => e.event === 'failed')).at - at);
      stream.close();
    }
    return {
      rounds,
      revoke_to_stream_end_ms: summarize(revoked),
      commit_to_client_ms: {
        events_one_stream: summarize(sseOne),
        events_eight_streams: summarize(sseEight),
        long_poll: summarize(longPoll),
        events_folder_edit: summarize(folder),
      },
      folder_save_to_client_ms: summarize(saveToClient),
    };
  } finally {
    await server.close();
  }
}
