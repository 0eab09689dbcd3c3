import { Document } from 'flexsearch';
import { lowerBound } from '../../sorted.js';
import { FIELDS, type Field, type PageTerms } from './term-stats.js';

type FieldDoc = { id: number } & Record<Field, string[]>;

/**
 * Our tokenizer already ran: FlexSearch must not re-encode. Pages are added as term arrays
 * (joining and re-splitting them cost a third of the build, and fresh strings must be
 * hashed again where the vocabulary's strings are hashed once); queries come as strings.
 */
const passThrough = (input: string | string[]): string[] => (Array.isArray(input) ? input : input ? input.split(' ') : []);

// FlexSearch's types say a custom field yields a string; an array reaches `encode` as is.
const asIs = (field: Field) => ((doc: FieldDoc) => doc[field]) as unknown as (doc: FieldDoc) => string;

function createDocument(): Document<FieldDoc> {
  return new Document<FieldDoc>({
    document: { id: 'id', index: FIELDS.map((field) => ({ field, custom: asIs(field) })) },
    tokenize: 'strict',
    encode: passThrough,
    fastupdate: true,
    resolution: SLOTS,
  });
}

/**
 * FlexSearch keeps a term's pages in `resolution` slots, earlier slots first. We file a
 * page in the slot of how often the term occurs in the field: slot 0 for SLOTS times or
 * more, slot SLOTS − 1 for once. So FlexSearch lists the pages that use a term most
 * first, and a query reads each page's exact count (up to SLOTS − 1) off the postings
 * without touching the page's own term table.
 */
const SLOTS = 9;

function slotOf(count: number): number {
  return count >= SLOTS ? 0 : SLOTS - count;
}

/** The count a slot stands for: exact, except slot 0, which only says "at least SLOTS". */
export function countOfSlot(slot: number): number {
  return slot === 0 ? Infinity : SLOTS - slot;
}

/** What FlexSearch keeps inside: posting slots per term and field, and the shared fast-update register. */
interface FlexInternals {
  index: Map<string, { map: Postings; resolution: number; depth: number }>;
  reg: Map<number, number[][]>;
}

/**
 * FlexSearch's internals, checked to be shaped as this module expects (FlexSearch 0.8.212,
 * pinned: it files postings into them directly). A newer FlexSearch that changed them
 * fails here, at start-up and in the tests, not later with wrong results.
 */
function internals(doc: Document<FieldDoc>): FlexInternals {
  const inner = doc as unknown as FlexInternals;
  const shaped =
    inner.reg instanceof Map &&
    inner.index instanceof Map &&
    FIELDS.every((field) => {
      const index = inner.index.get(field);
      return index && index.map instanceof Map && index.resolution === SLOTS && !index.depth;
    });
  if (!shaped) throw new Error('FlexSearch internals are not shaped as Quire expects (FlexSearch 0.8.212)');
  return inner;
}

/**
 * The FlexSearch `Document` (numeric ids, fastupdate) that finds candidate pages for a
 * term; ranking is done by the caller with exact BM25 statistics. Pages are filed by how
 * often they use each term (see SLOTS).
 */
export class FlexIndex {
  private readonly inner: FlexInternals;

  private constructor(private readonly doc: Document<FieldDoc>) {
    this.inner = internals(doc);
  }

  static create(): FlexIndex {
    return new FlexIndex(createDocument());
  }

  /**
   * `fields`: each field's distinct terms and their counts; `id` must not be indexed (the
   * caller removes a page before re-adding it). Files the postings into FlexSearch's
   * structures as its `add` does (each term's slot array, and the register of those arrays
   * that its fast `remove` walks), but in the slot of the term's count, not of its
   * position. Its per-document duplicate check and per-term bookkeeping were also a third
   * of a full build, and our terms are already distinct.
   */
  add(id: number, fields: PageTerms): void {
    const count = FIELDS.reduce((n, field) => n + fields[field].terms.length, 0);
    if (count === 0) return;
    // Allocated at its final size: grown push by push it was reallocated several times per page.
    const register = new Array<number[]>(count);
    let k = 0;
    for (const field of FIELDS) {
      const { map } = this.inner.index.get(field)!;
      const { terms, counts } = fields[field];
      for (let i = 0; i < terms.length; i++) register[k++] = file(map, terms[i], slotOf(counts[i]), id);
    }
    this.inner.reg.set(id, register);
  }

  /**
   * Re-files a page whose terms went from `before` to `after`, moving only the postings
   * that changed: an edit changes a few of a page's hundreds of term counts, and taking
   * the page out of every posting array of its common words and back in was most of an
   * update's cost.
   */
  update(id: number, before: PageTerms, after: PageTerms): void {
    if (!this.inner.reg.has(id)) {
      this.remove(id);
      this.add(id, after);
      return;
    }
    const register: number[][] = [];
    for (const field of FIELDS) {
      const { map } = this.inner.index.get(field)!;
      const old = new Map<string, number>();
      before[field].terms.forEach((term, i) => old.set(term, slotOf(before[field].counts[i])));
      const { terms, counts } = after[field];
      for (let i = 0; i < terms.length; i++) {
        const slot = slotOf(counts[i]);
        const was = old.get(terms[i]);
        old.delete(terms[i]);
        const filed = was === slot ? map.get(terms[i])?.[slot] : undefined;
        if (filed) {
          register.push(filed);
          continue;
        }
        if (was !== undefined) unfile(map.get(terms[i])?.[was], id);
        register.push(file(map, terms[i], slot, id));
      }
      for (const [term, slot] of old) unfile(map.get(term)?.[slot], id);
    }
    this.inner.reg.set(id, register);
  }

  /**
   * Takes the page out of every posting array its register lists. FlexSearch's own
   * `remove` walks the whole register once per field, scanning each array with indexOf;
   * for a page of common words that was a millisecond per update. Our arrays are kept in
   * id order, so each is searched by halves.
   */
  remove(id: number): void {
    for (const ids of this.inner.reg.get(id) ?? []) unfile(ids, id);
    this.inner.reg.delete(id);
  }

  /** Pages holding every one of `terms` in one field, best first, at most `limit` per field. */
  candidates(terms: string[], limit: number): number[] {
    if (terms.length === 1) return this.firstHolders(terms[0], limit);
    const out = new Set<number>();
    const query = terms.join(' ');
    let groups: { result: unknown[] }[];
    try {
      groups = this.doc.search(query, { limit });
    } catch {
      // FlexSearch 0.8 throws on the whole query once one field's postings for a term were
      // emptied by updates; asking field by field keeps the fields that still answer.
      groups = FIELDS.flatMap((field) => {
        try {
          return this.doc.search(query, { limit, index: field });
        } catch {
          return [];
        }
      });
    }
    for (const group of groups) {
      for (const id of group.result) out.add(id as number);
    }
    return [...out];
  }

  /**
   * What FlexSearch's search gives for one term: per field, the first `limit` pages of its
   * posting slots in slot order. Read directly: a query makes ten-odd such lookups, and
   * FlexSearch's per-call overhead (options, per-field result objects) was a fifth of it.
   */
  private firstHolders(term: string, limit: number): number[] {
    const out = new Set<number>();
    for (const field of FIELDS) {
      let left = limit;
      for (const ids of this.inner.index.get(field)!.map.get(term) ?? []) {
        if (!ids) continue;
        for (let i = 0; i < ids.length && left > 0; i++, left--) out.add(ids[i]);
        if (left === 0) break;
      }
    }
    return [...out];
  }

  /**
   * The posting arrays of `term` in `field`, by slot: together, every page holding it
   * there, array `s` those using it `countOfSlot(s)` times.
   */
  postings(term: string, field: Field): (number[] | undefined)[] {
    return this.inner.index.get(field)!.map.get(term) ?? [];
  }

  /**
   * The postings as numbers, for the persisted index: per field the number of terms, then
   * per term its vocabulary id (`idOf`), a mask of the slots it fills, and per filled slot
   * its length and page ids. FlexSearch's own export is JSON, whose parsing was a third
   * of start-up, and it made a second copy of every term the vocabulary already holds.
   */
  snapshot(idOf: (term: string) => number): Uint32Array {
    let size = 0;
    for (const field of FIELDS) {
      size += 1;
      for (const slots of this.inner.index.get(field)!.map.values()) {
        size += 2;
        for (const ids of slots) if (ids?.length) size += 1 + ids.length;
      }
    }
    const out = new Uint32Array(size);
    let at = 0;
    for (const field of FIELDS) {
      const { map } = this.inner.index.get(field)!;
      out[at++] = map.size;
      for (const [term, slots] of map) {
        out[at++] = idOf(term);
        const maskAt = at++;
        slots.forEach((ids, slot) => {
          if (!ids?.length) return;
          out[maskAt] |= 1 << slot;
          out[at++] = ids.length;
          out.set(ids, at);
          at += ids.length;
        });
      }
    }
    return out;
  }

  /**
   * Rebuilds an index from `snapshot`'s numbers, terms named by `termOf`, with the
   * register FlexSearch's fast remove needs (built by counting first, so each page's is
   * allocated once at its final size). Throws on numbers that do not add up: the caller
   * then rebuilds from the vault.
   */
  static restore(data: Uint32Array, termOf: (id: number) => string | undefined, pages: number): FlexIndex {
    const index = FlexIndex.create();
    const counts = new Uint32Array(pages);
    const bad = () => new Error('inconsistent postings');
    // Two passes over the same layout: count each page's postings, then file them.
    for (const pass of [0, 1]) {
      const registers: number[][][] = [];
      const filled = new Uint32Array(pages);
      if (pass === 1) counts.forEach((count, id) => count && index.inner.reg.set(id, (registers[id] = new Array(count))));
      let at = 0;
      for (const field of FIELDS) {
        const { map } = index.inner.index.get(field)!;
        for (let terms = data[at++]; terms > 0; terms--) {
          const term = termOf(data[at++]);
          const mask = data[at++];
          if (term === undefined || mask >>> SLOTS) throw bad();
          const slots: number[][] = [];
          for (let slot = 0; slot < SLOTS; slot++) {
            if (!(mask & (1 << slot))) continue;
            const length = data[at++];
            // At their exact size: grown push by push they held a third more memory.
            const ids = new Array<number>(pass === 0 ? 0 : length);
            for (let k = 0; k < length; k++) {
              const id = data[at++];
              if (!(id < pages)) throw bad();
              if (pass === 0) {
                counts[id] += 1;
                continue;
              }
              registers[id][filled[id]++] = ids;
              ids[k] = id;
            }
            slots[slot] = ids;
          }
          if (pass === 1) map.set(term, slots);
        }
      }
      if (at !== data.length) throw bad();
    }
    return index;
  }
}

type Postings = Map<string, (number[] | undefined)[]>;

/** Adds `id` to a term's slot array, in id order; returns the array (for the register). */
function file(map: Postings, term: string, slot: number, id: number): number[] {
  let slots = map.get(term);
  if (!slots) map.set(term, (slots = []));
  const ids = slots[slot] ?? (slots[slot] = []);
  if (ids.length === 0 || ids[ids.length - 1] < id) ids.push(id);
  else ids.splice(lowerBound(ids, id), 0, id);
  return ids;
}

/** Takes `id` out of a slot array: found by halves, as arrays are in id order. */
function unfile(ids: number[] | undefined, id: number): void {
  if (!ids) return;
  const at = lowerBound(ids, id);
  if (ids[at] === id) ids.splice(at, 1);
}
