import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QuireError } from '../errors.js';

/** Seconds a client is told to wait before retrying a write refused as busy. */
const RETRY_AFTER_S = 5;

/** Files git leaves in the git folder while an operation is under way, and what each means. */
const IN_PROGRESS: { file: string; state: string; what: string }[] = [
  { file: 'rebase-merge', state: 'rebase', what: 'a rebase is in progress' },
  { file: 'rebase-apply', state: 'rebase', what: 'a rebase (or git am) is in progress' },
  { file: 'MERGE_HEAD', state: 'merge', what: 'a merge is in progress' },
  { file: 'CHERRY_PICK_HEAD', state: 'cherry-pick', what: 'a cherry-pick is in progress' },
  { file: 'REVERT_HEAD', state: 'revert', what: 'a revert is in progress' },
  { file: 'BISECT_LOG', state: 'bisect', what: 'a bisect is in progress' },
];

/**
 * Why the server must not commit in this repository now, or undefined when it may: a git
 * operation under way (its files are in the git folder until it ends or is aborted), or HEAD
 * detached or on another branch than `branchRef`. The server's commits go on the branch and
 * its working files; in these states the folder holds someone's half-done work.
 * Synchronous: seven existence checks cost microseconds, and run before every write.
 */
export function busyState(gitdir: string, branchRef: string): QuireError | undefined {
  const under = IN_PROGRESS.find((p) => existsSync(join(gitdir, p.file)));
  if (under) return busy(under.state, `${under.what} in the vault folder; writes resume when it is finished or aborted`);
  const head = readFileSync(join(gitdir, 'HEAD'), 'utf8').trim();
  if (head !== `ref: ${branchRef}`) {
    const other = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
    const what = other
      ? `branch ${other} is checked out in the vault folder, not ${branchRef.replace('refs/heads/', '')}`
      : 'HEAD is detached in the vault folder';
    return busy(other ? 'other-branch' : 'detached', `${what}; check the branch out again to resume writes`);
  }
  return undefined;
}

function busy(state: string, message: string): QuireError {
  return new QuireError('VAULT_BUSY', message.charAt(0).toUpperCase() + message.slice(1), { retry_after: RETRY_AFTER_S, state });
}
