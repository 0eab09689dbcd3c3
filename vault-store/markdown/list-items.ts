/**
 * List items and task markers, read the way Obsidian's Tasks plugin reads them: a prefix of
 * spaces, tabs and `>` (blockquotes and callouts), a marker (`-`, `*`, `+`, or 1-9 digits and
 * `.` or `)`), spaces, then for a task `[c]` with any one character `c` and a space, a tab or
 * the line end. Nesting is read from the width of the prefix, not from CommonMark's rules.
 */

export interface ListItem {
  /** Columns of whitespace before the list marker (a tab counts 4), `>` and the space after one not counted. */
  width: number;
  /** Offset in the line where the item's content starts, after the marker's spaces. */
  contentAt: number;
}

export interface TaskMarker {
  /** The character between the brackets, as written (one code point). */
  status: string;
  /** Offset in the line of that character, and of the text after the marker's space. */
  statusAt: number;
  textAt: number;
}

const isBlank = (code: number) => code === 0x20 || code === 0x09;

/** The list item a line starts, or undefined. */
export function listItem(line: string): ListItem | undefined {
  let i = 0;
  let width = 0;
  for (; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x20) width++;
    else if (c === 0x09) width += 4;
    else if (c !== 0x3e) break;
    else if (line.charCodeAt(i + 1) === 0x20) i++; // the space after a `>` belongs to it
  }
  if (i >= line.length) return undefined;
  const marker = line.charCodeAt(i);
  let after = i + 1;
  if (marker >= 0x30 && marker <= 0x39) {
    while (after < line.length && after - i < 9 && line.charCodeAt(after) >= 0x30 && line.charCodeAt(after) <= 0x39) after++;
    const close = after < line.length ? line.charCodeAt(after) : -1;
    if (close !== 0x2e && close !== 0x29) return undefined;
    after++;
  } else if (marker !== 0x2d && marker !== 0x2a && marker !== 0x2b) return undefined;
  if (after < line.length && !isBlank(line.charCodeAt(after))) return undefined;
  while (after < line.length && isBlank(line.charCodeAt(after))) after++;
  return { width, contentAt: after };
}

/** The task marker of a list item's line, or undefined when the item is no task. */
export function taskMarker(line: string, item: ListItem): TaskMarker | undefined {
  if (line.charCodeAt(item.contentAt) !== 0x5b) return undefined;
  const statusAt = item.contentAt + 1;
  const code = line.codePointAt(statusAt);
  if (code === undefined || code === 0x5d || code === 0x5b || code === 0x0a || code === 0x0d) return undefined;
  const close = statusAt + (code > 0xffff ? 2 : 1);
  if (line.charCodeAt(close) !== 0x5d) return undefined;
  if (close + 1 < line.length && !isBlank(line.charCodeAt(close + 1))) return undefined;
  return { status: String.fromCodePoint(code), statusAt, textAt: Math.min(close + 2, line.length) };
}

/**
 * How deep each list item sits: a stack of the prefix widths of the items above it. A line
 * that is no list item and starts at the margin ends every list; blank and indented lines
 * (an item's continuation) keep them.
 */
export class ListNesting {
  private readonly widths: number[] = [];

  /** The level (0: top) of an item whose prefix is `width` wide. */
  item(width: number): number {
    while (this.widths.length > 0 && this.widths[this.widths.length - 1] >= width) this.widths.pop();
    this.widths.push(width);
    return this.widths.length - 1;
  }

  /** A line that is no list item. */
  other(line: string): void {
    if (this.widths.length > 0 && line.length > 0 && !isBlank(line.charCodeAt(0)) && line.charCodeAt(0) !== 0x3e) this.widths.length = 0;
  }
}
