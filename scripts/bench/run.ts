/**
 * `npm run bench`: runs every suite in scripts/bench/suites (or those named on the command
 * line) against the seeded 10k-page vault and prints one JSON line per suite.
 * Suites export `default async function (): Promise<Record<string, unknown>>`.
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
const wanted = process.argv.slice(2);
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

for (const name of suites) {
  const mod = await import(join(dir, `${name}.ts`));
  const started = Date.now();
  const result = await mod.default();
  console.log(JSON.stringify({ suite: name, seconds: Math.round((Date.now() - started) / 100) / 10, ...result }));
}
