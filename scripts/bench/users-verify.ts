import { execFileSync } from 'node:child_process';
import type { UserTrace } from './users-load.js';

export interface Verdict {
  writes_acked: number;
  /** Acknowledged writes whose commit is not on the branch or whose file there lacks the write. */
  writes_missing: number;
  users_followed: number;
  /** Users whose change feed, concatenated over the run, is not exactly the branch's first-parent history since their start. */
  feeds_broken: number;
  examples: string[];
}

const git = (dir: string, args: string[], input?: string) =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', input, maxBuffer: 1 << 28 });

/** One `git cat-file --batch` for `commit:path` of every write; true where the file holds the write's marker. */
function writesLanded(dir: string, trace: UserTrace): boolean[] {
  const out = git(dir, ['cat-file', '--batch'], trace.writes.map((w) => `${w.commit}:${w.path}\n`).join(''));
  const found: boolean[] = [];
  let at = 0;
  for (const write of trace.writes) {
    const headerEnd = out.indexOf('\n', at);
    const header = out.slice(at, headerEnd);
    if (header.endsWith(' missing')) {
      found.push(false);
      at = headerEnd + 1;
      continue;
    }
    const size = Number(header.split(' ')[2]);
    // Content is ASCII here (the bench writes it), so characters and bytes agree.
    found.push(out.slice(headerEnd + 1, headerEnd + 1 + size).includes(write.marker));
    at = headerEnd + 1 + size + 1;
  }
  return found;
}

/**
 * After the server stopped, read each user's repository with system git: every
 * acknowledged write is on the branch with its content, and the change feed the bench
 * followed is the first-parent history since the user's start, each commit once, in order.
 */
export function verifyUsers(traces: Map<string, UserTrace>, dirOf: (user: string) => string): Verdict {
  const verdict: Verdict = { writes_acked: 0, writes_missing: 0, users_followed: 0, feeds_broken: 0, examples: [] };
  for (const [user, trace] of traces) {
    if (trace.start === undefined) continue;
    const dir = dirOf(user);
    const history = git(dir, ['rev-list', '--first-parent', '--reverse', `${trace.start}..main`])
      .split('\n')
      .filter(Boolean);
    const onBranch = new Set(history);
    verdict.users_followed++;
    if (history.join() !== trace.feed.join()) {
      verdict.feeds_broken++;
      verdict.examples.push(`${user}: feed ${trace.feed.length} commits, branch ${history.length}`);
    }
    verdict.writes_acked += trace.writes.length;
    const landed = trace.writes.length ? writesLanded(dir, trace) : [];
    trace.writes.forEach((write, i) => {
      if (onBranch.has(write.commit) && landed[i]) return;
      verdict.writes_missing++;
      verdict.examples.push(`${user}: ${write.marker} (${write.commit.slice(0, 8)} ${write.path})`);
    });
  }
  verdict.examples = verdict.examples.slice(0, 5);
  return verdict;
}
