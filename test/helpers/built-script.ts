import { buildSync } from 'esbuild';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
const built = new Map<string, string>();

/**
 * A TypeScript entry point (the `quire` CLI, a crash fixture) compiled once per test process,
 * as `npm run build` would, for tests that run it as a real child process. Under tsx every
 * start compiled the sources again: about a second per CLI command. The output sits inside
 * the repository so that its bare imports resolve to our node_modules, one folder per process
 * because test files run in parallel; imports of other chunks stay lazy, as in `dist/`.
 */
export function builtScript(entry: string): string {
  let out = built.get(entry);
  if (!out) {
    const outdir = join(ROOT, 'node_modules/.cache/quire-test-build', String(process.pid));
    buildSync({
      entryPoints: [join(ROOT, entry)],
      outdir,
      outbase: ROOT,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
      outExtension: { '.js': '.mjs' },
    });
    out = join(outdir, relative(ROOT, entry).replace(/\.ts$/, '.mjs'));
    built.set(entry, out);
  }
  return out;
}

/** The argv prefix that runs the `quire` CLI: `[process.execPath, cli(...args)]`. */
export function cli(...args: string[]): string[] {
  return [builtScript('scripts/quire.ts'), ...args];
}
