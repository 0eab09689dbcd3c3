import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { isQuireError, QuireError, type ErrorCode } from '../errors.js';

/** An error as a worker posts it: a structured clone keeps an error's message but not its code or details. */
export interface PostedError {
  message: string;
  code?: ErrorCode;
  details?: Record<string, unknown>;
}

/**
 * The module `name` of this folder as a file to start a worker or process on: compiled
 * (dist/), or the source when run through tsx; none when a bundle left it out (the tests'
 * built CLI), and the caller does the work itself.
 */
export function moduleFile(name: string): { path: string; source: boolean } | undefined {
  for (const [ext, source] of [
    ['js', false],
    ['ts', true],
  ] as const) {
    const path = fileURLToPath(new URL(`./${name}.${ext}`, import.meta.url));
    if (existsSync(path)) return { path, source };
  }
  return undefined;
}

/**
 * A worker thread on the module `name` of this folder, or none (see `moduleFile`). From
 * sources, tsx's loader is registered in the worker first: Node 20 does not apply the
 * `--import tsx` a worker inherits.
 */
export function startWorker(name: string, workerData: unknown): Worker | undefined {
  const file = moduleFile(name);
  if (!file?.source) return file && new Worker(file.path, { workerData });
  const [tsx, entry] = [createRequire(import.meta.url).resolve('tsx/cjs'), file.path].map((path) => JSON.stringify(path));
  return new Worker(`require(${tsx}); require(${entry});`, { eval: true, workerData });
}

export function postedError(err: unknown): PostedError {
  if (isQuireError(err)) return { message: err.message, code: err.code, details: err.details };
  return { message: err instanceof Error ? err.message : String(err) };
}

export function errorOf(posted: PostedError): Error {
  return posted.code ? new QuireError(posted.code, posted.message, posted.details) : new Error(posted.message);
}
