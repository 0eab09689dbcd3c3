export interface Ranked<T> {
  item: T;
  key: string;
  score: number;
}

/** Higher score first, then key ascending: a total order, so any way of sorting agrees. */
function before<T>(a: Ranked<T>, b: Ranked<T>): boolean {
  return a.score > b.score || (a.score === b.score && a.key < b.key);
}

/**
 * `ranked` best first, ordering only as much as the caller consumes. A query has thousands
 * of scored candidates and wants ten: sorting them all was a large part of its time. The
 * first `likely` come from one pass that keeps the best few in a small sorted array; a
 * caller that filters out more than that gets the rest from a full sort.
 */
export function* bestFirst<T>(ranked: Ranked<T>[], likely: number): Generator<Ranked<T>> {
  likely = Math.max(1, likely);
  const top: Ranked<T>[] = [];
  for (const r of ranked) {
    if (top.length === likely && !before(r, top[likely - 1])) continue;
    let at = Math.min(top.length, likely - 1);
    while (at > 0 && before(r, top[at - 1])) at--;
    top.splice(at, 0, r);
    if (top.length > likely) top.pop();
  }
  yield* top;
  if (ranked.length <= likely) return;
  const all = ranked.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  for (let i = likely; i < all.length; i++) yield all[i];
}
