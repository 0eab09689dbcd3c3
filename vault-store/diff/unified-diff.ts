import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/**
 * Past this many changed lines, or this long, the two versions are not diffed (the cost grows
 * with lines × changes; 3,000 changed lines take seconds): the patch replaces every line,
 * which is still a valid patch.
 */
const MAX_EDIT_LINES = 2000;
const MAX_DIFF_MS = 250;

/** One side of a whole-file hunk: every line with its mark, and git's note on a missing final newline. */
function wholeSide(text: string, mark: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  const ends = lines[lines.length - 1] === '';
  if (ends) lines.pop();
  return [...lines.map((line) => mark + line), ...(ends ? [] : ['\\ No newline at end of file'])];
}

/**
 * A unified diff (`diff -u` style, 3 lines of context, `\ No newline at end of file` where
 * one side lacks the final newline) from `before` to `after`, by the `diff` library; null
 * stands for a page that does not exist. Empty string when nothing differs.
 */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return '';
  const names = [before === null ? '/dev/null' : `a/${path}`, after === null ? '/dev/null' : `b/${path}`] as const;
  const [a, b] = [before ?? '', after ?? ''];
  const patch = createTwoFilesPatch(names[0], names[1], a, b, undefined, undefined, {
    context: 3,
    headerOptions: FILE_HEADERS_ONLY,
    maxEditLength: MAX_EDIT_LINES,
    timeout: MAX_DIFF_MS,
  });
  if (patch !== undefined) return patch;
  const [removed, added] = [wholeSide(a, '-'), wholeSide(b, '+')];
  const count = (side: string[]) => side.filter((line) => !line.startsWith('\\')).length;
  const range = (n: number) => `${n ? 1 : 0},${n}`;
  return [`--- ${names[0]}`, `+++ ${names[1]}`, `@@ -${range(count(removed))} +${range(count(added))} @@`, ...removed, ...added, ''].join(
    '\n',
  );
}
