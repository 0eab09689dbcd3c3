/**
 * What a query that leaves the tails of split lists unread (see MARKER in pack-postings.ts)
 * knows of each page it met, by page id beside the rest of a query's scratch (see
 * score-bounds.ts): per slot the most the page can score (`upper`), what the heads it was met
 * in credit it (a page met in a head is in none of its tail), and how many alternatives met
 * it in every list they left unread (`settled`: with all of them, its score is known).
 * Reused by every query, like that scratch.
 */
let upper = new Float64Array(0);
let credits = new Float64Array(0);
/** Per page, the pass (an alternative being read) whose credit `credits` holds. */
let credited = new Uint32Array(0);
let settled = new Uint8Array(0);

/** Room for `ids` pages of `width` slots. */
export function growTails(ids: number, width: number): void {
  if (credits.length < ids) [credits, credited, settled] = [new Float64Array(ids), new Uint32Array(ids), new Uint8Array(ids)];
  if (upper.length < ids * width) upper = new Float64Array(ids * width);
}

/** Page `id` is met: nothing known of it yet. */
export function meetTails(id: number, width: number): void {
  for (let k = id * width; k < id * width + width; k++) upper[k] = 0;
  settled[id] = 0;
}

/** Passes are counted over all queries; when the count starts again, old marks must not match. */
export function forgetPasses(): void {
  credited.fill(0);
}

/** The first `n` of `ids` were met in the head of a list whose tail adds at most `cap`, while pass `now` read it. */
export function credit(ids: Int32Array, n: number, cap: number, now: number): void {
  const [given, marked] = [credits, credited];
  for (let p = 0; p < n; p++) {
    const id = ids[p];
    if (marked[id] === now) given[id] += cap;
    else {
      marked[id] = now;
      given[id] = cap;
    }
  }
}

/**
 * The first `count` pages of `met`, which the alternative of pass `now` touched (`sums`:
 * what its lists read add to each): the most it can score in each, into their slot `s`'s
 * `upper`. Its lists' parts read, plus `opened` (what its lists left unread add at most)
 * less the tails of the heads the page was met in; met in all of them, what it scores. A
 * page it did not touch is in none of the lists read and scores at most what `opened` gives.
 */
export function foldUpper(
  met: Int32Array,
  count: number,
  sums: Float64Array,
  now: number,
  at: { width: number; s: number; weight: number; idf: number; opened: number },
): void {
  const { width, s, weight, idf, opened } = at;
  for (let t = 0; t < count; t++) {
    const id = met[t];
    // Given all it could be (the same additions in the same order), the page is in no list left unread.
    const extra = opened - (credited[id] === now ? credits[id] : 0);
    if (opened > 0 && extra === 0) settled[id] += 1;
    const k = id * width + s;
    upper[k] = Math.max(upper[k], extra > 0 ? weight * ((sums[id] + extra) * idf) : weight * (sums[id] * idf));
  }
}

/** The most page `id` can score in slot `k` of its row (see `foldUpper`). */
export function upperOf(k: number): number {
  return upper[k];
}

/** Whether alternatives met page `id` in every list they left unread, `unsettled` of them. */
export function settledIn(id: number, unsettled: number): boolean {
  return settled[id] === unsettled;
}
