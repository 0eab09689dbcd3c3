/** Index of the first element of `sorted` (ascending; strings in code-unit order) that is not below `key`. */
export function lowerBound<T extends string | number>(sorted: readonly T[], key: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
