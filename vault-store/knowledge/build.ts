import { fork } from 'node:child_process';
import type { Vault } from '../vault.js';
import { buildSnapshot, type BuildInput, type BuildMessage, type Progress } from './build-snapshot.js';
import { errorOf, moduleFile } from './worker-thread.js';

/**
 * Builds the index of HEAD and saves it as a new snapshot of `dir`, in a child process (the
 * builder, build-process.ts): the caller then opens it as a warm start does. A build leaves
 * its garbage and a fragmented heap behind: in this process, glibc kept ~20–25 MB freed and
 * V8's new space stayed grown (161 MB of RSS after a build at 10k pages against 119 MB after
 * a warm start, with the same live heap). A worker thread took back only part of it, and
 * not reliably (its malloc arena outlives it: 134–163 MB); a process gives all of it back
 * when it exits, and the thread that serves requests stays free meanwhile. Vaults under
 * `builderMinPages` build in this thread. Resolves once the builder has exited; rejects with
 * the error the build threw, its message and (for a QuireError) code kept.
 */
export async function buildFromHead(vault: Vault, dir: string, options: { builderMinPages: number; progress?: Progress }): Promise<void> {
  const paths = [...vault.manifest.pages()];
  const input: BuildInput = {
    gitdir: vault.repo.gitdir,
    dir,
    commit: vault.head,
    paths,
    oids: paths.map((p) => vault.manifest.get(p)!.oid),
  };
  const file = paths.length >= options.builderMinPages ? moduleFile('build-process') : undefined;
  if (!file) return buildSnapshot(input, { parallel: false, progress: options.progress });
  // Not the server's own flags (a bench's preloaded hooks); tsx's loader from sources.
  const builder = fork(file.path, [], { execArgv: file.source ? ['--import', 'tsx'] : [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    let outcome: 'built' | Error | undefined;
    builder.on('message', (message: BuildMessage) => {
      if ('done' in message) options.progress?.(message.done, message.total);
      else outcome = 'built' in message ? 'built' : errorOf(message.failed);
    });
    builder.on('error', (err) => (outcome ??= err));
    builder.on('exit', (code, signal) =>
      outcome === 'built' ? resolve() : reject(outcome ?? new Error(`The index build stopped (${signal ?? `exit code ${code}`})`)),
    );
    builder.send(input);
  });
}
