/**
 * The line with every inline code span (CommonMark: a backtick run closed by the next run of
 * the same length) overwritten by backticks, offsets unchanged, so nothing inside one reads as
 * a link or a tag. Closers are found through one queue of run positions per run length whose
 * cursors only move forward, so a line of backtick runs of every length is still read once.
 */
export function maskCodeSpans(line: string): string {
  const starts: number[] = [];
  const ends: number[] = [];
  for (let at = line.indexOf('`'); at >= 0; at = line.indexOf('`', ends[ends.length - 1])) {
    let end = at;
    while (end < line.length && line[end] === '`') end++;
    starts.push(at);
    ends.push(end);
  }
  const byLength = new Map<number, { runs: number[]; next: number }>();
  ends.forEach((end, run) => {
    const length = end - starts[run];
    const queue = byLength.get(length) ?? byLength.set(length, { runs: [], next: 0 }).get(length)!;
    queue.runs.push(run);
  });
  let masked = '';
  let copied = 0;
  for (let run = 0; run < starts.length; run++) {
    const queue = byLength.get(ends[run] - starts[run])!;
    while (queue.next < queue.runs.length && queue.runs[queue.next] <= run) queue.next++;
    if (queue.next === queue.runs.length) continue; // no closer: the run is literal text
    const closer = queue.runs[queue.next];
    masked += line.slice(copied, starts[run]) + '`'.repeat(ends[closer] - starts[run]);
    copied = ends[closer];
    run = closer;
  }
  return copied === 0 ? line : masked + line.slice(copied);
}
