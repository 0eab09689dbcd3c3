import type { Vault } from '../vault.js';
import { diffLines, splitLines, type DiffOp } from './line-diff.js';
import type { ProposalChange } from './proposal.js';
import type { ProposalRefs } from './proposal-refs.js';

/** What the page becomes on approval (null: deleted), unless the change conflicts. */
export type Resolution = { applies: 'clean' | 'merge'; content: Uint8Array | null } | { applies: 'conflict' };

/** A replaced range of base lines [start, end) and the lines that replace it. */
interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function hunks(ops: readonly DiffOp[]): Hunk[] {
  const out: Hunk[] = [];
  let base = 0;
  let open: Hunk | undefined;
  for (const op of ops) {
    if (op.kind === 'keep') {
      open = undefined;
      base++;
      continue;
    }
    if (!open) out.push((open = { start: base, end: base, lines: [] }));
    if (op.kind === 'del') open.end = ++base;
    else open.lines.push(op.line);
  }
  return out;
}

const same = (a: Hunk, b: Hunk) => a.start === b.start && a.end === b.end && a.lines.join('\n') === b.lines.join('\n');

/**
 * Three-way line merge of two edits of `base`. Hunks that touch or overlap (closed ranges,
 * as git treats adjacent edits) conflict unless they are the same edit; otherwise both
 * apply. Returns undefined on conflict.
 */
export function mergeLines(base: string, ours: string, theirs: string): string | undefined {
  const baseLines = splitLines(base);
  const mine = hunks(diffLines(baseLines, splitLines(ours)));
  const other = hunks(diffLines(baseLines, splitLines(theirs)));
  for (const a of mine) {
    for (const b of other) if (a.start <= b.end && b.start <= a.end && !same(a, b)) return undefined;
  }
  const all = [...mine, ...other.filter((b) => !mine.some((a) => same(a, b)))].sort((a, b) => a.start - b.start);
  const out: string[] = [];
  let at = 0;
  for (const hunk of all) {
    out.push(...baseLines.slice(at, hunk.start), ...hunk.lines);
    at = hunk.end;
  }
  out.push(...baseLines.slice(at));
  const trailing = [base, ours, theirs].every((text) => text === '' || text.endsWith('\n'));
  return out.length ? `${out.join('\n')}${trailing ? '\n' : ''}` : '';
}

/**
 * How one proposed change lands on the page as it is now: cleanly (still at its base, or
 * already in place), by merging with an edit made since, or not at all. Deletions and
 * creations never merge: the page moved, so the owner must look again.
 */
export async function mergeChange(vault: Vault, refs: ProposalRefs, change: ProposalChange): Promise<Resolution> {
  const current = vault.manifest.get(change.path)?.oid ?? null;
  const proposed = change.delete ? null : change.hash!;
  const content = async () => (proposed === null ? null : refs.content(proposed));
  if (current === change.base_hash || current === proposed) return { applies: 'clean', content: await content() };
  if (proposed === null || current === null || change.base_hash === null) return { applies: 'conflict' };
  const [base, ours, theirs] = await Promise.all(
    [change.base_hash, current, proposed].map(async (oid) => decoder.decode(await vault.repo.objects.blob(oid))),
  );
  const merged = mergeLines(base, ours, theirs);
  return merged === undefined ? { applies: 'conflict' } : { applies: 'merge', content: encoder.encode(merged) };
}
