/**
 * `npm run bench`: runs every suite in scripts/bench/suites (or those named on the command
 * line) against the seeded 10k-page vault and prints one JSON line per suite.
 * Suites export `default async function (options: string[]): Promise<Record<string, unknown>>`,
 * given the arguments from the first `--option` on (`npm run bench -- scale --sizes 1k`);
 * a suite exporting `explicitOnly = true` (minutes long) runs only when named.
 * Builds dist/ first: some suites measure the compiled code in a child process, as the
 * server runs it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

execFileSync(
  process.execPath,
  [join(import.meta.dirname, '../../node_modules/typescript/bin/tsc'), '-p', join(import.meta.dirname, '../../tsconfig.json')],
  { stdio: 'inherit' },
);

const dir = join(import.meta.dirname, 'suites');
const args = process.argv.slice(2);
const firstOption = args.findIndex((arg) => arg.startsWith('--'));
const wanted = firstOption < 0 ? args : args.slice(0, firstOption);
const options = firstOption < 0 ? [] : args.slice(firstOption);
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

for (const name of suites) {
  const mod = await import(join(dir, `${name}.ts`));
  if (mod.explicitOnly && !wanted.includes(name)) continue;
  const started = Date.now();
  const result = await mod.default(options);
  console.log(JSON.stringify({ suite: name, seconds: Math.round((Date.now() - started) / 100) / 10, ...result }));
}
