import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** Ref writes come in bursts (lock, rename, reflog): one follow after the burst. */
const SETTLE_MS = 20;

/** Names whose change can move the branch or HEAD: the loose ref, packed refs, HEAD itself. */
const MOVES = new Set(['main', 'packed-refs', 'HEAD']);

/**
 * Tells `onMove` when git may have moved the branch in this repository: a commit, pull,
 * merge, reset, rebase or push in the folder rewrites `.git/refs/heads/main` (or
 * `packed-refs`, or `HEAD`) by renaming a lock file over it, which the watches on those two
 * folders report by name. Two watches per vault; the caller reads the ref to see what moved.
 */
export class BranchWatcher {
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(gitdir: string, onMove: () => void, onError: (err: Error) => void) {
    const changed = (name: string | null) => {
      if (name !== null && !MOVES.has(name)) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(onMove, SETTLE_MS);
    };
    for (const folder of [gitdir, join(gitdir, 'refs', 'heads')]) {
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) => changed(name === null ? null : String(name)));
        watcher.on('error', onError);
        this.watchers.push(watcher);
      } catch (err) {
        onError(err as Error);
      }
    }
  }

  close(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers) watcher.close();
  }
}
