import { mergeText } from '../diff/three-way-merge.js';
import { QuireError } from '../errors.js';
import { hashBlob } from '../git/hash-blob.js';
import type { Vault } from '../vault.js';

/**
 * How an edit whose base_hash is stale may still land: `merge` applies it to its base and
 * merges that three-way with the page as it is now; `reapply` applies it to the page as it
 * is now, for an edit that means the same on any version (appending).
 */
export type OnStale = 'merge' | 'reapply';

const decoder = new TextDecoder();

/**
 * The text a stale edit writes, inside the write queue. `current` is the page now (it
 * exists); `baseHash` names the version the edit was made on. A base git does not hold is
 * CONFLICT as without merging; overlapping edits are CONFLICT with `merge`, the page with
 * conflict markers (`<<<<<<< ours`: the page now, `>>>>>>> theirs`: the edit), and the hashes
 * of base, ours (`current_hash`) and theirs.
 */
export async function staleEdit(
  vault: Vault,
  path: string,
  input: { baseHash: string; current: { oid: string; content: Uint8Array }; onStale: OnStale },
  change: string | ((text: string | undefined) => string),
): Promise<string> {
  const ours = decoder.decode(input.current.content);
  if (typeof change !== 'string' && input.onStale === 'reapply') return change(ours);
  const base = await vault.repo.objects.blob(input.baseHash).catch(() => undefined);
  if (!base) {
    throw new QuireError('CONFLICT', `${path} changed since ${input.baseHash}, a version this vault does not hold: nothing to merge with`, {
      path,
      current_hash: input.current.oid,
    });
  }
  const baseText = decoder.decode(base);
  const theirs = typeof change === 'string' ? change : change(baseText);
  const merged = mergeText(baseText, ours, theirs);
  if (merged.clean) return merged.text;
  throw new QuireError('CONFLICT', `${path} changed since ${input.baseHash} and the changes overlap your edit`, {
    path,
    current_hash: input.current.oid,
    base_hash: input.baseHash,
    theirs_hash: hashBlob(new TextEncoder().encode(theirs)),
    merge: merged.text,
  });
}
