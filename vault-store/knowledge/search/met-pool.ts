import type { IndexedDoc, IndexedDocs } from './indexed-docs.js';

/** Pages of the met ones `lacks` is tried on first, spread evenly, to tell whether it is worth trying on all. */
const SAMPLE = 512;
/** Fewer sampled pages than this with a filter to tell: `lacks` would rule out too few to pay. */
const KNOWN_MIN = 16;
/**
 * `lacks` is tried on every page met only when a sample says fewer than this share of the
 * pages it can tell of pass it: about twice the filters' false positives (~1.2%), so most
 * of those passing do not hold the phrase and the walk would pop nearly every page met to
 * find its results. A check costs about a seventh of popping a page in score order to drop
 * it. A common phrase ("pron rar") passes on thousands of pages and its walk stops after a
 * few dozen pops: checking every page met first made the bench's phrases slower at the
 * median (in-process at 100k pages, three alternated pairs: 3.8 / 4.2 / 2.6 → 4.4 / 5.3 /
 * 2.9 ms). Pages whose filter is not made yet (those an earlier walk stopped short of)
 * cannot be told of, so the share is of those with one.
 */
const FEW_PASS = 0.025;

/**
 * The pages met (ascending) that the prefix and tag filters `keep`, and that `lacks` does
 * not rule out when few pass it (see FEW_PASS): `met` itself when neither applies.
 */
export function metPool(
  index: IndexedDocs,
  met: Int32Array,
  keep: ((doc: IndexedDoc) => boolean) | undefined,
  lacks: ((id: number) => boolean | undefined) | undefined,
): ArrayLike<number> {
  const rule = lacks && fewPass(met, lacks) ? lacks : undefined;
  if (!keep && !rule) return met;
  const out: number[] = [];
  for (const id of met) {
    if (rule?.(id)) continue;
    const doc = index.docs[id];
    if (!keep || (doc !== undefined && keep(doc))) out.push(id);
  }
  return out;
}

/** Whether, by a sample, under FEW_PASS of the pages of `met` that `lacks` can tell of (not undefined) pass it. */
function fewPass(met: Int32Array, lacks: (id: number) => boolean | undefined): boolean {
  const step = Math.max(1, met.length / SAMPLE);
  let known = 0;
  let passed = 0;
  for (let at = 0; at < met.length; at += step) {
    const lacking = lacks(met[Math.floor(at)]);
    if (lacking === undefined) continue;
    known += 1;
    if (!lacking) passed += 1;
  }
  return known >= KNOWN_MIN && passed < FEW_PASS * known;
}
