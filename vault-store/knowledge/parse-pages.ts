import { once } from 'node:events';
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

/** The build's pages, read from git and parsed, a batch at a time. */
export async function* parsePages(input: PageList): AsyncGenerator<ParsedPage[]> {
  const objects = new ObjectReader(input.gitdir);
  for (let i = 0; i < input.paths.length; i += READ_BATCH) {
    const oids = input.oids.slice(i, i + READ_BATCH);
    const blobs = await Promise.all(oids.map((oid) => objects.blob(oid)));
    yield oids.map((oid, j) => pageMeta(input.paths[i + j], oid, blobs[j]));
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
  const stopped = once(worker, 'exit').then(([code]) => {
    throw new Error(`The page parser stopped (exit code ${code})`);
  });
  stopped.catch(() => undefined);
  try {
    for (;;) {
      worker.postMessage('next');
      // `once` rejects on the worker's 'error' event.
      const [message] = (await Promise.race([once(worker, 'message'), stopped])) as [ParseMessage];
      if ('end' in message) return;
      if ('failed' in message) throw errorOf(message.failed);
      yield message.pages;
    }
  } finally {
    await worker.terminate();
  }
}
