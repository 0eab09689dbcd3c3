import { diffArrays } from 'diff';

/**
 * A three-way merge's outcome: the merged text, or (`clean: false`) the text with git-style
 * conflict markers around each overlapping edit, `ours` first.
 */
export interface MergeResult {
  clean: boolean;
  text: string;
}

export const OURS_MARKER = '<<<<<<< ours';
export const SEPARATOR = '=======';
export const THEIRS_MARKER = '>>>>>>> theirs';

/**
 * Past this many changed lines between the base and one side, or this long, the two are not
 * diffed (the cost grows with lines × changes, and a merge holds the vault's write queue) and
 * the whole changed middle is one conflict.
 */
const MAX_EDIT_LINES = 1000;
const MAX_DIFF_MS = 250;

/** One side's edit of the base: base lines [oStart, oEnd) became side lines [start, end). */
interface Hunk {
  side: 0 | 1;
  oStart: number;
  oEnd: number;
  start: number;
  end: number;
}

/**
 * Lines with their terminators: `\r\n` stays part of its line and a last line without a
 * newline stays without one, so joining gives each text back byte for byte and a change of
 * line ending or of the final newline is a change of that line, as git sees it.
 */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Lines as numbers, equal lines equal numbers, so the diff compares numbers. */
function interned(texts: string[]): { ids: number[][]; lines: string[] } {
  const seen = new Map<string, number>();
  const lines: string[] = [];
  const ids = texts.map((text) =>
    splitLines(text).map((line) => {
      let id = seen.get(line);
      if (id === undefined) seen.set(line, (id = lines.push(line) - 1));
      return id;
    }),
  );
  return { ids, lines };
}

/** The edits turning `o` into `side`, by the `diff` library (Myers); undefined past the bounds above. */
function hunks(o: number[], side: number[], which: 0 | 1): Hunk[] | undefined {
  const changes = diffArrays(o, side, { maxEditLength: MAX_EDIT_LINES, timeout: MAX_DIFF_MS });
  if (!changes) return undefined;
  const out: Hunk[] = [];
  let [oAt, at] = [0, 0];
  let open: Hunk | undefined;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      oAt += change.count;
      at += change.count;
      open = undefined;
      continue;
    }
    if (!open) out.push((open = { side: which, oStart: oAt, oEnd: oAt, start: at, end: at }));
    if (change.removed) open.oEnd = oAt += change.count;
    else open.end = at += change.count;
  }
  return out;
}

/**
 * Merges two edits of `base` line by line, as diff3 does: the edits of each side against the
 * base (the `diff` library), grouped where they overlap or touch in the base (git treats
 * adjacent edits as a conflict too); a group only one side edited takes that side, one both
 * edited alike takes it once, any other is a conflict. Lines all three share at the start and
 * end are set aside first, so a small edit to a long page costs little.
 */
export function mergeText(base: string, ours: string, theirs: string): MergeResult {
  if (ours === theirs || theirs === base) return { clean: true, text: ours };
  if (ours === base) return { clean: true, text: theirs };
  const { ids, lines } = interned([base, ours, theirs]);
  const [o, a, b] = ids;
  let head = 0;
  while (head < o.length && head < a.length && head < b.length && o[head] === a[head] && o[head] === b[head]) head++;
  let tail = 0;
  const room = Math.min(o.length, a.length, b.length) - head;
  while (tail < room && o[o.length - 1 - tail] === a[a.length - 1 - tail] && o[o.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const [mo, ma, mb] = [o, a, b].map((list) => list.slice(head, list.length - tail));
  const [ha, hb] = [hunks(mo, ma, 0), hunks(mo, mb, 1)];
  const all = ha && hb ? [...ha, ...hb].sort((x, y) => x.oStart - y.oStart || x.side - y.side) : undefined;

  const eol = ours.includes('\r\n') ? '\r\n' : '\n';
  const out: number[] = [];
  const emit = (part: readonly number[]) => {
    for (const id of part) out.push(id);
  };
  // A marker starts a line of its own, even after a last line that has no newline.
  const marker = (label: string) => {
    const open = out.length > 0 && !lines[out[out.length - 1]].endsWith('\n');
    out.push(lines.push((open ? eol : '') + label + eol) - 1);
  };
  let clean = true;
  const conflict = (mine: readonly number[], other: readonly number[]) => {
    clean = false;
    marker(OURS_MARKER);
    emit(mine);
    marker(SEPARATOR);
    emit(other);
    marker(THEIRS_MARKER);
  };
  emit(a.slice(0, head));
  if (!all) conflict(ma, mb);
  else {
    let oAt = 0;
    for (let i = 0; i < all.length;) {
      const group = [all[i]];
      let oEnd = all[i].oEnd;
      for (i++; i < all.length && all[i].oStart <= oEnd; i++) {
        group.push(all[i]);
        oEnd = Math.max(oEnd, all[i].oEnd);
      }
      const oStart = group[0].oStart;
      emit(mo.slice(oAt, oStart));
      oAt = oEnd;
      // Each side's lines standing for base lines [oStart, oEnd): its own edits there, kept lines around them.
      const sideText = (which: 0 | 1, side: number[]) => {
        const own = group.filter((h) => h.side === which);
        if (!own.length) return undefined;
        return side.slice(own[0].start - (own[0].oStart - oStart), own[own.length - 1].end + (oEnd - own[own.length - 1].oEnd));
      };
      const [mine, other] = [sideText(0, ma), sideText(1, mb)];
      if (!other) emit(mine!);
      else if (!mine || (mine.length === other.length && mine.every((id, k) => id === other[k]))) emit(other);
      else conflict(mine, other);
    }
    emit(mo.slice(oAt));
  }
  emit(a.slice(a.length - tail));
  return { clean, text: out.map((id) => lines[id]).join('') };
}
