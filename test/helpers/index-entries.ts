import type { IndexEntry } from '../../vault-store/git/index-record.js';
import { SortedIndex } from '../../vault-store/git/index-memory.js';

/** Every entry of a `.git/index` file's bytes, decoded as the server reads them (SortedIndex). */
export function indexEntriesOf(bytes: Buffer): IndexEntry[] {
  const index = SortedIndex.fromFile(bytes);
  return Array.from({ length: index.size }, (_, i) => index.entry(i));
}
