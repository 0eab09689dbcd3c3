/** Line-level rules (CommonMark, restricted to what Quire reads): fences and ATX headings. */

export interface FenceMarker {
  char: '`' | '~';
  length: number;
}

const isSpaceOrTab = (line: string, at: number) => at < line.length && (line[at] === ' ' || line[at] === '\t');

/** Spaces before the first other character, or -1 past three (an indented code line). */
function indentOf(line: string): number {
  let i = 0;
  while (i < 4 && i < line.length && line[i] === ' ') i++;
  return i === 4 ? -1 : i;
}

/** End of the run of `char` from `from`, read no further than `max` characters. */
function runEnd(line: string, from: number, char: string, max = Infinity): number {
  let i = from;
  while (i < line.length && i - from < max && line[i] === char) i++;
  return i;
}

/** The fence a line opens: three or more backticks or tildes; a backtick fence's info string holds no backtick. */
export function fenceOpening(line: string): FenceMarker | undefined {
  const at = indentOf(line);
  const char = at >= 0 && at < line.length ? line[at] : '';
  if (char !== '`' && char !== '~') return undefined;
  const end = runEnd(line, at, char);
  if (end - at < 3 || (char === '`' && line.indexOf('`', end) >= 0)) return undefined;
  return { char, length: end - at };
}

/** True when the line closes `fence`: a run of its character at least as long, then only spaces. */
export function closesFence(line: string, fence: FenceMarker): boolean {
  const at = indentOf(line);
  if (at < 0 || at >= line.length || line[at] !== fence.char) return false;
  let end = runEnd(line, at, fence.char);
  if (end - at < fence.length) return false;
  while (isSpaceOrTab(line, end)) end++;
  return end === line.length;
}

/** Level and text of an ATX heading line; the text is empty for a bare `##`. */
export function atxHeading(line: string): { level: number; text: string } | undefined {
  const at = indentOf(line);
  if (at < 0 || at >= line.length || line[at] !== '#') return undefined;
  const end = runEnd(line, at, '#', 7);
  const level = end - at;
  if (level > 6 || (end < line.length && !isSpaceOrTab(line, end))) return undefined;
  return { level, text: headingText(line, end) };
}

/** The text after the opening run, without spaces around it or a closing `#` run that follows a space. */
function headingText(line: string, from: number): string {
  let start = from;
  let end = line.length;
  while (start < end && isSpaceOrTab(line, start)) start++;
  while (end > start && isSpaceOrTab(line, end - 1)) end--;
  let closing = end;
  while (closing > start && line[closing - 1] === '#') closing--;
  if (closing === start) return '';
  if (closing < end && isSpaceOrTab(line, closing - 1)) {
    end = closing;
    while (end > start && isSpaceOrTab(line, end - 1)) end--;
  }
  return line.slice(start, end);
}
