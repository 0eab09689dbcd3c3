import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexEntry } from '../../vault-store/git/index-record.js';
import { SortedIndex } from '../../vault-store/git/index-memory.js';

/**
 * Every entry of a `.git/index` file's bytes, decoded as the server reads them (SortedIndex);
 * a split index's shared part is read from `gitdir` when given.
 */
export function indexEntriesOf(bytes: Buffer, gitdir?: string): IndexEntry[] {
  const shared = (base: string) => join(gitdir ?? '', `sharedindex.${base}`);
  const index = SortedIndex.fromFile(bytes, (base) => (gitdir && existsSync(shared(base)) ? readFileSync(shared(base)) : undefined));
  return Array.from({ length: index.size }, (_, i) => index.entry(i));
}
