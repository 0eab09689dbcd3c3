import fs from 'node:fs';
import { dirname } from 'node:path';
import { fsyncPath } from '../atomic-file.js';

/**
 * The fs handed to isomorphic-git: node's, except that every file it writes (objects) is
 * remembered so `flush()` can fsync them all at once — in parallel, before the ref moves.
 * One fsync per object in sequence was the bulk of a write's latency; a crash before
 * `flush()` returns leaves only unreferenced objects, which git ignores.
 */
export function durableFs(): { fs: typeof fs; flush: () => Promise<void>; track: (path: string) => void } {
  let written = new Set<string>();
  const writeFile = async (path: string, data: string | Uint8Array, options?: fs.WriteFileOptions) => {
    await fs.promises.writeFile(path, data, options);
    written.add(path);
  };
  const flush = async () => {
    const paths = [...written];
    written = new Set();
    const dirs = new Set(paths.map((p) => dirname(p)));
    await Promise.all([...paths, ...dirs].map(fsyncPath));
  };
  return { fs: { ...fs, promises: { ...fs.promises, writeFile } } as unknown as typeof fs, flush, track: (path) => written.add(path) };
}
