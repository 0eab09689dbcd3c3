import fs from 'node:fs';
import { writeFileSynced } from '../atomic-file.js';

/**
 * The fs handed to isomorphic-git. Identical to node's, except that object files are
 * fsynced as they are written: a commit is only acknowledged after its objects are on
 * disk, so a crash can never leave a ref pointing at a missing object.
 */
export function durableFs(): typeof fs {
  const promises = {
    ...fs.promises,
    writeFile: (path: string, data: string | Uint8Array) => writeFileSynced(path, data),
  };
  return { ...fs, promises } as unknown as typeof fs;
}
