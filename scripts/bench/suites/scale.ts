/**
 * Issue 17's measurement harness: per vault size (default 1k, 10k, 30k, 100k pages, seed 42,
 * generated and committed once under bench-data/scale/) the real server in a child process
 * (`quire serve` from dist/), measured only from outside: first build to the first search
 * answered, peak and steady RSS (/proc VmHWM, VmRSS after two forced GCs), search latency
 * over HTTP, the peak of a save after a burst of writes, and a warm restart. Prints a table
 * with the goals' PASS/FAIL and the curve over sizes.
 *
 *   npm run bench -- scale [--sizes 1k,10k] [--users [--seconds 30 ...]]
 *
 * `--users` runs the many-users bench instead (suites/scale-users.ts, its options there).
 */
import { parseArgs } from 'node:util';
import { scaleReport } from '../scale-report.js';
import { measureSize, type SizeResult } from '../scale-size.js';
import scaleUsers from './scale-users.js';

/** Minutes at 100k: only when asked for by name. */
export const explicitOnly = true;

const pagesOf = (size: string) => Math.round(Number(size.replace(/k$/i, '')) * (/k$/i.test(size) ? 1000 : 1));

export default async function (args: string[] = []): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args, strict: false, options: { sizes: { type: 'string' }, users: { type: 'boolean' } } });
  if (values.users) return scaleUsers(args);
  const sizes = String(values.sizes ?? '1k,10k,30k,100k')
    .split(',')
    .map(pagesOf);
  const results: SizeResult[] = [];
  for (const pages of sizes) {
    results.push(await measureSize(pages));
    console.error(`scale: ${pages} pages done`);
  }
  console.log(scaleReport(results));
  return { sizes: results };
}
