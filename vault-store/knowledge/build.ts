import { fork } from 'node:child_process';
import type { Vault } from '../vault.js';
import { buildSnapshot, type BuildInput, type BuildMessage, type Progress } from './build-snapshot.js';
import { errorOf, moduleFile } from './worker-thread.js';

/**
 * The builder's V8 flags. A build allocates fast and keeps little of it: semi-spaces of 1 MB
 * (16 by default, in the builder's thread and its parse worker each) hold far less garbage
 * between scavenges; `gc` is for the full collections of `BuildOptions.collect`. The
 * builder's peak at 10k pages went 204 → 148–151 MB with them (185 with the collections
 * alone, 163 with 4 MB semi-spaces). The price is CPU: at 100k pages 69 s against 60 with
 * 4 MB (and 60 before), and 11 s more of wall time in the collections.
 */
const BUILDER_FLAGS = ['--max-semi-space-size=1', '--expose-gc'];

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
  const execArgv = [...(file.source ? ['--import', 'tsx'] : []), ...BUILDER_FLAGS];
  const builder = fork(file.path, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
