import { Document } from 'flexsearch';
import { FIELDS, type FieldTokens } from './term-stats.js';

type FieldDoc = { id: number } & Record<(typeof FIELDS)[number], string>;

/** Our tokenizer already ran: FlexSearch sees space-joined terms and must not re-encode them. */
const passThrough = (text: string): string[] => (text ? text.split(' ') : []);

function createDocument(): Document<FieldDoc> {
  return new Document<FieldDoc>({
    document: { id: 'id', index: [...FIELDS] },
    tokenize: 'strict',
    encode: passThrough,
    fastupdate: true,
    resolution: 9,
  });
}

/** What FlexSearch keeps inside; read only to restore its fast-update register after import. */
interface FlexInternals {
  index: Map<string, { map: Map<string, (number[] | undefined)[]> }>;
  reg: Map<number, number[][]>;
}

/**
 * The FlexSearch `Document` (numeric ids, fastupdate) that finds candidate pages for a
 * term; ranking is done by the caller with exact BM25 statistics. Each field gets the
 * page's distinct terms in first-occurrence order, so FlexSearch's own order (earlier is
 * better) is what decides which candidates of a very common term are kept.
 */
export class FlexIndex {
  private constructor(private readonly doc: Document<FieldDoc>) {}

  static create(): FlexIndex {
    return new FlexIndex(createDocument());
  }

  add(id: number, fields: FieldTokens): void {
    const doc = { id } as FieldDoc;
    for (const field of FIELDS) doc[field] = [...new Set(fields[field])].join(' ');
    this.doc.add(doc);
  }

  remove(id: number): void {
    this.doc.remove(id);
  }

  /** Pages holding every one of `terms` in one field, best first, at most `limit` per field. */
  candidates(terms: string[], limit: number): number[] {
    const out = new Set<number>();
    for (const group of this.doc.search(terms.join(' '), { limit })) {
      for (const id of group.result) out.add(id as number);
    }
    return [...out];
  }

  /** FlexSearch's own export, minus the register (rebuilt on import: it holds references). */
  async export(): Promise<[string, string][]> {
    const parts: [string, string][] = [];
    await this.doc.export((key, data) => {
      if (data && !key.endsWith('reg')) parts.push([key, data]);
    });
    return parts;
  }

  /**
   * Loads an export. FlexSearch 0.8 drops fastupdate on import (its register holds array
   * references, not data), which would make every later update scan the whole index; so
   * the register is rebuilt here from the imported posting arrays. Throws if FlexSearch's
   * internals are not shaped as expected; the caller then rebuilds from scratch.
   */
  static import(parts: [string, string][]): FlexIndex {
    const doc = createDocument();
    for (const [key, data] of parts) doc.import(key, data);
    const inner = doc as unknown as FlexInternals;
    if (!(inner.reg instanceof Map) || !(inner.index instanceof Map)) throw new Error('unexpected FlexSearch internals');
    for (const field of inner.index.values()) {
      if (!(field.map instanceof Map)) throw new Error('unexpected FlexSearch internals');
      for (const slots of field.map.values()) {
        for (const ids of slots) {
          if (!ids) continue;
          for (const id of ids) {
            const refs = inner.reg.get(id);
            if (refs) refs.push(ids);
            else inner.reg.set(id, [ids]);
          }
        }
      }
    }
    return new FlexIndex(doc);
  }
}
