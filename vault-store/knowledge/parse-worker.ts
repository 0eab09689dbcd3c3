/**
 * The parse worker's entry (see `parsedInWorker`): answers each request with the next batch
 * of parsed pages, keeping AHEAD batches under way so the builder never waits on a read.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parsePages, type PageList, type ParseMessage, type ParsedPage } from './parse-pages.js';
import { postedError } from './worker-thread.js';

const AHEAD = 2;
const batches = parsePages(workerData as PageList);
const ahead: Promise<IteratorResult<ParsedPage[]>>[] = [];
const fill = () => {
  while (ahead.length < AHEAD) {
    const next = batches.next();
    next.catch(() => undefined); // told when asked for, not as an unhandled rejection
    ahead.push(next);
  }
};
const tell = (message: ParseMessage) => parentPort!.postMessage(message);

fill();
parentPort!.on('message', () => {
  const next = ahead.shift()!;
  fill();
  next.then(
    (result) => tell(result.done ? { end: true } : { pages: result.value }),
    (err: unknown) => tell({ failed: postedError(err) }),
  );
});
