import { QuireError } from '../errors.js';
import { isFenceLine } from '../page.js';

export interface Section {
  /** Offset of the heading line's first character. */
  start: number;
  /** Offset just after the heading line (its newline included). */
  bodyStart: number;
  /** Offset where the next heading of the same or a higher level starts, or the end. */
  end: number;
  level: number;
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;

function headingKey(text: string): string {
  return text.replace(/^#+\s*/, '').trim().toLowerCase();
}

/**
 * Finds a heading's section, outside fenced code. `heading` may be given with or without
 * its "#"s, in any case ("Goals", "## goals"). Exactly one match is required.
 */
export function findSection(content: string, heading: string): Section {
  const wanted = headingKey(heading);
  const lines = content.split('\n');
  const found: Section[] = [];
  let open: Section | undefined;
  let offset = 0;
  let inFence = false;
  for (const line of lines) {
    if (isFenceLine(line)) inFence = !inFence;
    const m = inFence ? null : HEADING.exec(line);
    if (m) {
      const level = m[1].length;
      if (open && level <= open.level) { open.end = offset; open = undefined; }
      if (headingKey(m[2]) === wanted) {
        open = { start: offset, bodyStart: Math.min(content.length, offset + line.length + 1), end: content.length, level };
        found.push(open);
      }
    }
    offset += line.length + 1;
  }
  if (found.length === 0) throw new QuireError('NOT_FOUND', `No heading "${heading}" in the page`, { heading });
  if (found.length > 1) throw new QuireError('INVALID_REQUEST', `Heading "${heading}" appears ${found.length} times; patch by find/replace instead`, { field: 'heading' });
  return found[0];
}

/** Joins text blocks so exactly one newline ends each and no block runs into the next. */
export function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
