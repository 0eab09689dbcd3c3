import { QuireError } from '../errors.js';
import { findSection, withNewline } from './sections.js';

/** Appends at the end of the page, or at the end of a heading's section. */
export function appendText(content: string, text: string, heading?: string): string {
  if (!heading) return withNewline(content) + withNewline(text);
  const section = findSection(content, heading);
  const body = content.slice(section.bodyStart, section.end).replace(/\n+$/, '\n');
  const rest = content.slice(section.end);
  const gap = rest === '' ? '' : '\n';
  return content.slice(0, section.bodyStart) + withNewline(body === '\n' ? '' : body) + withNewline(text) + gap + rest;
}

/** Replaces the body under a heading, keeping the heading line itself. */
export function replaceSection(content: string, heading: string, replacement: string): string {
  const section = findSection(content, heading);
  const rest = content.slice(section.end);
  return content.slice(0, section.bodyStart) + withNewline(replacement) + (rest === '' ? '' : '\n') + rest;
}

/** Replaces one exact span; it must occur exactly once so the edit lands where intended. */
export function replaceSpan(content: string, find: string, replacement: string): string {
  if (find === '') throw new QuireError('INVALID_REQUEST', 'find must not be empty', { field: 'find' });
  const first = content.indexOf(find);
  if (first < 0) throw new QuireError('NOT_FOUND', 'The find text does not occur in the page', { field: 'find' });
  if (content.indexOf(find, first + 1) >= 0) {
    throw new QuireError('INVALID_REQUEST', 'The find text occurs more than once; include more context', { field: 'find' });
  }
  return content.slice(0, first) + replacement + content.slice(first + find.length);
}
