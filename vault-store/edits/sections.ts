import { QuireError } from '../errors.js';
import { bodyStart } from '../markdown/frontmatter.js';
import { scanMarkdown } from '../markdown/scan.js';

export interface Section {
  /** Offset of the heading line's first character. */
  start: number;
  /** Offset just after the heading line (its newline included). */
  bodyStart: number;
  /** Offset where the next heading of the same or a higher level starts, or the end. */
  end: number;
  level: number;
}

function headingKey(text: string): string {
  return text
    .replace(/^#+\s*/, '')
    .trim()
    .toLowerCase();
}

/**
 * Finds a heading's section, outside front-matter and fenced code. `heading` may be given
 * with or without its "#"s, in any case ("Goals", "## goals"). Exactly one match is required.
 */
export function findSection(content: string, heading: string): Section {
  const wanted = headingKey(heading);
  const found: Section[] = [];
  let open: Section | undefined;
  for (const { level, text, start } of scanMarkdown(content, bodyStart(content)).headings) {
    if (open && level <= open.level) {
      open.end = start;
      open = undefined;
    }
    if (text !== '' && headingKey(text) === wanted) {
      const lineEnd = content.indexOf('\n', start);
      open = { start, bodyStart: lineEnd < 0 ? content.length : lineEnd + 1, end: content.length, level };
      found.push(open);
    }
  }
  if (found.length === 0) throw new QuireError('NOT_FOUND', `No heading "${heading}" in the page`, { heading });
  if (found.length > 1)
    throw new QuireError('INVALID_REQUEST', `Heading "${heading}" appears ${found.length} times; patch by find/replace instead`, {
      field: 'heading',
    });
  return found[0];
}

/** Joins text blocks so exactly one newline ends each and no block runs into the next. */
export function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
