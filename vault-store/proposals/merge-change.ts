import { mergeText } from '../diff/three-way-merge.js';
import type { Vault } from '../vault.js';
import type { ProposalChange } from './proposal.js';
import type { ProposalRefs } from './proposal-refs.js';

/**
 * What the page becomes on approval (null: deleted), unless the change conflicts; a text
 * conflict carries the page with conflict markers (see mergeText).
 */
export type Resolution = { applies: 'clean' | 'merge'; content: Uint8Array | null } | { applies: 'conflict'; merge?: string };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * How one proposed change lands on the page as it is now: cleanly (still at its base, or
 * already in place), by merging with an edit made since (the same three-way merge as a
 * write with `merge: true`), or not at all. Deletions and creations never merge: the page
 * moved, so the owner must look again.
 */
export async function mergeChange(vault: Vault, refs: ProposalRefs, change: ProposalChange): Promise<Resolution> {
  const current = vault.manifest.get(change.path)?.oid ?? null;
  const proposed = change.delete ? null : change.hash!;
  const content = async () => (proposed === null ? null : refs.content(proposed));
  if (current === change.base_hash || current === proposed) return { applies: 'clean', content: await content() };
  if (proposed === null || current === null || change.base_hash === null) return { applies: 'conflict' };
  const [base, ours, theirs] = await Promise.all(
    [change.base_hash, current, proposed].map(async (oid) => decoder.decode(await vault.repo.objects.blob(oid))),
  );
  const merged = mergeText(base, ours, theirs);
  return merged.clean ? { applies: 'merge', content: encoder.encode(merged.text) } : { applies: 'conflict', merge: merged.text };
}
