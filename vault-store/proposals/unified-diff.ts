import { diffLines, splitLines, type DiffOp } from './line-diff.js';

const CONTEXT = 3;

function range(start: number, count: number): string {
  // As diff(1): an empty side is numbered by the line before it.
  return count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
}

/** Index ranges of the ops each hunk covers: changes plus up to CONTEXT kept lines around. */
function hunkSpans(ops: readonly DiffOp[]): [number, number][] {
  const spans: [number, number][] = [];
  ops.forEach((op, i) => {
    if (op.kind === 'keep') return;
    const from = Math.max(0, i - CONTEXT);
    const to = Math.min(ops.length, i + CONTEXT + 1);
    const last = spans[spans.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else spans.push([from, to]);
  });
  return spans;
}

/**
 * A unified diff (`diff -u` style, 3 lines of context) from `before` to `after`; null
 * stands for a page that does not exist. Empty string when nothing differs.
 */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return '';
  const ops = diffLines(splitLines(before ?? ''), splitLines(after ?? ''));
  const out = [`--- ${before === null ? '/dev/null' : `a/${path}`}`, `+++ ${after === null ? '/dev/null' : `b/${path}`}`];
  // Line numbers on each side at the start of every op.
  const starts: [number, number][] = [];
  let aLine = 1;
  let bLine = 1;
  for (const op of ops) {
    starts.push([aLine, bLine]);
    if (op.kind !== 'add') aLine++;
    if (op.kind !== 'del') bLine++;
  }
  for (const [from, to] of hunkSpans(ops)) {
    const slice = ops.slice(from, to);
    const aCount = slice.filter((op) => op.kind !== 'add').length;
    const bCount = slice.filter((op) => op.kind !== 'del').length;
    const [aStart, bStart] = starts[from];
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`);
    for (const op of slice) out.push(`${op.kind === 'keep' ? ' ' : op.kind === 'del' ? '-' : '+'}${op.line}`);
  }
  return `${out.join('\n')}\n`;
}
