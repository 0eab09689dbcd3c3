import { isSpace, tagRunEnd } from './chars.js';
import type { LineAt, LinkSpan } from './links.js';

export interface TagSpan {
  /** Without the `#`. */
  name: string;
  /** Offset of the `#`. */
  start: number;
  /** 1-based line in the file. */
  line: number;
}

/** Where a `#` is part of a link's destination: all of a wiki link, a markdown link from its href on. */
const destinationStart = (link: LinkSpan) => (link.kind === 'wiki' ? link.start : link.targetStart);

/**
 * `#name` at the line start or after whitespace or `(`, outside the destinations of this
 * line's `links` (sorted by offset), which are read with one forward cursor.
 */
export function tags(text: string, at: LineAt, links: readonly LinkSpan[], out: TagSpan[]): void {
  let link = 0;
  for (let hash = text.indexOf('#'); hash >= 0; hash = text.indexOf('#', hash + 1)) {
    if (hash + 1 < text.length && text.charCodeAt(hash + 1) === 0x23) {
      while (hash + 1 < text.length && text.charCodeAt(hash + 1) === 0x23) hash++; // no `#` of a run of them starts a tag
      continue;
    }
    const before = hash > 0 ? text.charCodeAt(hash - 1) : 0x20;
    if (before !== 0x28 && !isSpace(before)) continue;
    // A tag needs one non-digit so "#1" in prose is not a tag (Obsidian's rule).
    const end = tagRunEnd(text, hash + 1);
    if (end <= hash + 1) continue;
    const offset = at.offset + hash;
    while (link < links.length && links[link].end <= offset) link++;
    if (link < links.length && destinationStart(links[link]) <= offset) continue;
    out.push({ name: text.slice(hash + 1, end), start: offset, line: at.line });
    hash = end - 1;
  }
}
