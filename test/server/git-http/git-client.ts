import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv } from '../../helpers/child-env.js';

/** `git -c …` options naming the author of the client's commits (and merging on pull). */
export const AUTHOR = ['-c', 'user.name=Pat Pusher', '-c', 'user.email=pat@example.com', '-c', 'pull.rebase=false'];

export interface GitResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs git without blocking the event loop (the server answering it may run in this very process); never throws. */
export function git(args: string[], cwd?: string): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8', env: childEnv(), maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr });
    });
  });
}

/** The URL git clones and pushes a server's vault at, with `key` as the password. */
export function remoteUrl(serverUrl: string, key: string): string {
  return serverUrl.replace('http://', `http://anyone:${key}@`) + '/vault.git';
}

/** `git fsck --strict` of `dir`: its exit status and everything it said. */
export function fsck(dir: string): { status: number | null; output: string } {
  const run = spawnSync('git', ['fsck', '--strict', '--no-progress'], { cwd: dir, encoding: 'utf8', env: childEnv() });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/**
 * The commit a branch points at, read as git resolves it: the loose ref, else its line in
 * packed-refs. Tests read heads often, and a git process per read cost more than the tests
 * (a fork of a grown test process is ~20 ms). Throws unless it is a full object id.
 */
export function readRef(gitdir: string, ref: string): string {
  const loose = existsSync(join(gitdir, ref)) ? readFileSync(join(gitdir, ref), 'utf8').trim() : undefined;
  const packed = () =>
    readFileSync(join(gitdir, 'packed-refs'), 'utf8')
      .split('\n')
      .find((line) => line.endsWith(` ${ref}`))
      ?.split(' ')[0];
  const oid = loose ?? packed();
  if (oid && /^[0-9a-f]{40}$/.test(oid)) return oid;
  throw new Error(`${ref} in ${gitdir} is not a commit id: ${JSON.stringify(oid)}`);
}

/** Whether `commit` is `head` or one of its ancestors in the repository at `dir`. */
export function isAncestor(dir: string, commit: string, head: string): boolean {
  return spawnSync('git', ['merge-base', '--is-ancestor', commit, head], { cwd: dir }).status === 0;
}

/** Lock files anywhere under `.git` (a stale one blocks git and the server alike). */
export function lockFiles(gitdir: string, under = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(gitdir, under), { withFileTypes: true })) {
    const rel = under ? `${under}/${entry.name}` : entry.name;
    if (entry.isDirectory() && entry.name !== 'objects') found.push(...lockFiles(gitdir, rel));
    else if (entry.name.endsWith('.lock')) found.push(rel);
  }
  return found;
}
