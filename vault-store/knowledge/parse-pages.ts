import { setImmediate } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { ObjectReader } from '../git/object-reader.js';
import { pageMeta } from './page-meta.js';
import { errorOf, startWorker, type PostedError } from './worker-thread.js';

/** The pages to read: their paths and blob ids, in the same order, and the repository's git folder. */
export interface PageList {
  gitdir: string;
  paths: string[];
  oids: string[];
}

/** A page as read and parsed for the index (see `addParsed`). */
export type ParsedPage = ReturnType<typeof pageMeta>;

/** What the parse worker answers to each request for a batch. */
export type ParseMessage = { pages: ParsedPage[] } | { end: true } | { failed: PostedError };

const READ_BATCH = 64;
/** Text parsed between two turns of the event loop: a few large pages cost ~100 ms per MiB. */
const PARSE_SLICE_BYTES = 512 * 1024;

/**
 * The build's pages, read from git and parsed, a batch at a time. A batch ends early after
 * PARSE_SLICE_BYTES of text and the next waits for a turn of the event loop: a build in the
 * serving thread (small vaults) must not keep requests waiting through a few 1 MiB pages.
 */
export async function* parsePages(input: PageList): AsyncGenerator<ParsedPage[]> {
  const objects = new ObjectReader(input.gitdir);
  for (let i = 0; i < input.paths.length; i += READ_BATCH) {
    const oids = input.oids.slice(i, i + READ_BATCH);
    const blobs = await Promise.all(oids.map((oid) => objects.blob(oid)));
    let slice: ParsedPage[] = [];
    let bytes = 0;
    for (const [j, oid] of oids.entries()) {
      slice.push(pageMeta(input.paths[i + j], oid, blobs[j]));
      bytes += blobs[j].length;
      if (bytes < PARSE_SLICE_BYTES || j === oids.length - 1) continue;
      yield slice;
      await setImmediate();
      [slice, bytes] = [[], 0];
    }
    yield slice;
  }
}

/**
 * `parsePages`, run in a worker of its own (parse-worker.ts) while the caller files the
 * batches it already has: reading and parsing are ~40% of a build's CPU, so on two cores the
 * two halves overlap. Batches come one request at a time, the worker parsing a few ahead,
 * so parsed pages never pile up in the caller. In this thread when there is no worker file.
 */
export async function* parsedInWorker(input: PageList): AsyncGenerator<ParsedPage[]> {
  const worker = startWorker('parse-worker', input);
  if (!worker) return yield* parsePages(input);
  const next = answers(worker);
  try {
    for (;;) {
      worker.postMessage('next');
      const message = await next();
      if ('end' in message) return;
      if ('failed' in message) throw errorOf(message.failed);
      yield message.pages;
    }
  } finally {
    await worker.terminate();
  }
}

/**
 * Asks for the worker's answers one at a time: each call resolves with its next message, or
 * rejects once the worker failed or exited (before the call too). Only the request waiting
 * holds its answer: a race of each request against one promise of the worker's exit hung
 * every batch on that promise until the end (all the pages' bodies: 350 MB of the builder's
 * heap at 100k pages).
 */
function answers(worker: Worker): () => Promise<ParseMessage> {
  let ended: Error | undefined;
  let waiting: { resolve: (message: ParseMessage) => void; reject: (err: Error) => void } | undefined;
  const take = () => {
    const taken = waiting;
    waiting = undefined;
    return taken;
  };
  const end = (err: Error) => {
    ended ??= err;
    take()?.reject(ended);
  };
  worker.on('message', (message: ParseMessage) => take()?.resolve(message));
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`The page parser stopped (exit code ${code})`)));
  return () => (ended ? Promise.reject(ended) : new Promise((resolve, reject) => (waiting = { resolve, reject })));
}
