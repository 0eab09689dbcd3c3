import { isDeepStrictEqual } from 'node:util';
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import { readFrontmatter } from '../markdown/frontmatter.js';

/** One hunk of a line diff; `lines` start with ' ' (context), '-' (removed) or '+' (added), as in a unified diff. */
export interface DiffHunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  lines: string[];
}

/** A front-matter field that differs between the two versions; null stands for absent. */
export interface FieldChange {
  field: string;
  change: 'added' | 'removed' | 'changed';
  from: unknown;
  to: unknown;
}

export interface TextDiff {
  unified: string;
  hunks: DiffHunk[];
  frontmatter: FieldChange[];
}

/**
 * Myers' diff is O(N·D): two large pages with nothing in common would take seconds. Past this
 * the diff gives up and reports the whole text replaced, which is still a correct diff.
 */
const DIFF_TIMEOUT_MS = 1000;

/** The line diff (unified text and hunks) and front-matter field changes from `before` to `after`. */
export function diffTexts(input: { oldName: string; newName: string; before: string; after: string }): TextDiff {
  const { oldName, newName, before, after } = input;
  const patch =
    structuredPatch(oldName, newName, before, after, undefined, undefined, { context: 3, timeout: DIFF_TIMEOUT_MS }) ??
    wholeReplacement(oldName, newName, before, after);
  const hunks = patch.hunks.map((h) => ({
    old_start: h.oldStart,
    old_lines: h.oldLines,
    new_start: h.newStart,
    new_lines: h.newLines,
    lines: h.lines,
  }));
  return { unified: hunks.length ? formatPatch(patch, FILE_HEADERS_ONLY) : '', hunks, frontmatter: frontmatterChanges(before, after) };
}

function wholeReplacement(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  const [removed, added] = [linesOf(before), linesOf(after)];
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: removed.length ? 1 : 0,
        oldLines: removed.length,
        newStart: added.length ? 1 : 0,
        newLines: added.length,
        lines: [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)],
      },
    ],
  };
}

function linesOf(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

function frontmatterChanges(before: string, after: string): FieldChange[] {
  const [a, b] = [readFrontmatter(before).data, readFrontmatter(after).data];
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const out: FieldChange[] = [];
  for (const field of fields) {
    const [had, has] = [Object.hasOwn(a, field), Object.hasOwn(b, field)];
    if (had && has && isDeepStrictEqual(a[field], b[field])) continue;
    const change = !had ? 'added' : !has ? 'removed' : 'changed';
    out.push({ field, change, from: had ? a[field] : null, to: has ? b[field] : null });
  }
  return out;
}
