import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Repo-relative path of a .ts file → what it imports: repo-relative .ts paths and bare package names. */
export type ImportGraph = Map<string, string[]>;

export const ROOT = resolve(import.meta.dirname, '../..');

function tsFilesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name).split('\\').join('/'));
}

/**
 * Every `import … from`, `export … from`, `import type` and dynamic `import('…')` of the
 * files under `folders`, read by the TypeScript scanner (comments and strings cannot fool
 * it). Relative specifiers become repo paths (`.js` → `.ts`); packages keep their name.
 */
export function importGraph(folders: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of folders.flatMap(tsFilesUnder)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    graph.set(
      file,
      importedFiles.map(({ fileName }) => {
        if (!fileName.startsWith('.')) return fileName;
        const target = relative(ROOT, join(ROOT, dirname(file), fileName))
          .split('\\')
          .join('/');
        return target.replace(/\.js$/, '.ts');
      }),
    );
  }
  return graph;
}

/** Each import cycle once, as the chain of files that closes it (first file repeated at the end). */
export function cycles(graph: ImportGraph): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}
