import { buildSync } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
const CACHE = join(ROOT, 'node_modules/.cache/quire-test-build');
/** What a build reads: our sources, and the dependencies as package-lock.json pins them. */
const SOURCES = ['scripts', 'server', 'vault-store', 'test/fixtures'];
const DAY_MS = 24 * 60 * 60_000;
const built = new Map<string, string>();

/**
 * A TypeScript entry point (the `quire` CLI, a crash fixture) compiled as `npm run build`
 * would, for tests that run it as a real child process. Under tsx every start compiled the
 * sources again: about a second per CLI command. The output sits inside the repository so
 * that the dependencies left out of it resolve to our node_modules; imports of other chunks
 * stay lazy, as in `dist/`.
 * Dependencies are bundled too: loading zod, express and isomorphic-git file by file was most
 * of a command's start (0.7 s of CPU, 0.3 s bundled). Kept out: the native better-sqlite3, and
 * pino, which starts worker threads from files next to its own.
 * One build serves every test process (and the next run) until a source file changes: its
 * folder is named by the sizes and times of the files it reads.
 */
export function builtScript(entry: string): string {
  let out = built.get(entry);
  if (!out) {
    const key = sourcesKey();
    const outdir = join(CACHE, key, basename(entry, '.ts'));
    if (!existsSync(outdir)) {
      build(entry, outdir);
      prune(key);
    }
    out = join(outdir, relative(ROOT, entry).replace(/\.ts$/, '.mjs'));
    built.set(entry, out);
  }
  return out;
}

/** The argv prefix that runs the `quire` CLI: `[process.execPath, cli(...args)]`. */
export function cli(...args: string[]): string[] {
  return [builtScript('scripts/quire.ts'), ...args];
}

function sourcesKey(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    const stat = statSync(path);
    hash.update(`${relative(ROOT, path)}\0${stat.size}\0${stat.mtimeMs}\n`);
  };
  add(join(ROOT, 'package-lock.json'));
  for (const folder of SOURCES) {
    for (const name of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' }).sort()) {
      if (name.endsWith('.ts')) add(join(ROOT, folder, name));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds beside `outdir` and renames: test files run in parallel, and another process may win the race. */
function build(entry: string, outdir: string): void {
  const temp = `${outdir}.${process.pid}`;
  buildSync({
    entryPoints: [join(ROOT, entry)],
    outdir: temp,
    outbase: ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'pino'],
    // The CommonJS dependencies require node's modules.
    banner: { js: "import { createRequire as quireTestRequire } from 'node:module'; const require = quireTestRequire(import.meta.url);" },
    logLevel: 'error',
    outExtension: { '.js': '.mjs' },
  });
  try {
    renameSync(temp, outdir);
  } catch (err) {
    if (!existsSync(outdir)) throw err;
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Builds of sources since changed are kept a day, in case a test run that started on them still runs. */
function prune(key: string): void {
  for (const name of readdirSync(CACHE)) {
    const stat = statSync(join(CACHE, name), { throwIfNoEntry: false });
    if (name !== key && stat && Date.now() - stat.mtimeMs > DAY_MS) rmSync(join(CACHE, name), { recursive: true, force: true });
  }
}
