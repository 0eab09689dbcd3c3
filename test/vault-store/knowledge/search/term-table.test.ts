import { expect } from 'chai';
import { SearchIndex } from '../../../../vault-store/knowledge/search/search-index.js';
import { FIELD_COUNT, TableSlab, TableWriter, TermCursor, termCount, TF_MAX } from '../../../../vault-store/knowledge/search/term-table.js';

/** A table of `terms` ascending ids with counts per field: as TermStats hands them to the writer. */
function write(rows: [id: number, counts: number[]][], slab = new TableSlab()): Uint8Array {
  const writer = new TableWriter();
  writer.start(rows.length);
  for (const [id, counts] of rows) writer.term(id, counts, 0);
  return writer.take(slab);
}

function read(bytes: Uint8Array): [number, number[]][] {
  const cursor = new TermCursor().open({ bytes, lens: [] });
  const out: [number, number[]][] = [];
  while (cursor.next()) out.push([cursor.id, [...cursor.tf]]);
  return out;
}

describe('packed term tables', () => {
  it('read back every id and count written: big gaps, counts past a nibble and a byte, any mix of fields, capped as a rebuild caps them', () => {
    let seed = 11;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const counts = [1, 2, 15, 16, 127, 128, 255, 256, 300, 70_000];
    const rows: [number, number[]][] = [];
    for (let id = 0, i = 0; i < 2000; i++, id += 1 + next(i % 10 === 0 ? 3_000_000 : 200)) {
      const tf = Array.from({ length: FIELD_COUNT }, () => (next(3) === 0 ? counts[next(counts.length)] : 0));
      if (tf.every((c) => c === 0)) tf[next(FIELD_COUNT)] = counts[next(counts.length)];
      rows.push([id, tf]);
    }
    const bytes = write(rows);
    expect(read(bytes)).to.deep.equal(rows.map(([id, tf]) => [id, tf.map((c) => Math.min(c, TF_MAX))]));
    expect(termCount({ bytes, lens: [] })).to.equal(rows.length);
    expect(bytes.length / rows.length, 'bytes a term').to.be.below(5);
  });

  it('finds a term by id and stops past where an absent one would be', () => {
    const bytes = write([
      [3, [0, 2, 0, 0]],
      [9, [1, 0, 0, 1]],
      [400, [0, 0, 17, 0]],
    ]);
    const cursor = new TermCursor();
    expect(cursor.open({ bytes, lens: [] }).find(9)).to.equal(true);
    expect([...cursor.tf]).to.deep.equal([1, 0, 0, 1]);
    expect(cursor.open({ bytes, lens: [] }).find(10)).to.equal(false);
    expect(cursor.open({ bytes, lens: [] }).find(400)).to.equal(true);
    expect(cursor.tf[2]).to.equal(17);
    expect(cursor.open({ bytes, lens: [] }).find(401)).to.equal(false);
    expect(write([]).length, 'an empty table is its count alone').to.equal(1);
  });

  it('reaches each term asked in ascending order, skipping the others, as reading every term would', () => {
    let seed = 5;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const counts = [1, 15, 16, 200, 70_000];
    const rows: [number, number[]][] = [];
    for (let id = next(5), i = 0; i < 500; i++, id += 1 + next(i % 7 === 0 ? 20_000 : 40)) {
      const tf = Array.from({ length: FIELD_COUNT }, () => (next(2) === 0 ? counts[next(counts.length)] : 0));
      if (tf.every((c) => c === 0)) tf[next(FIELD_COUNT)] = counts[next(counts.length)];
      rows.push([id, tf]);
    }
    const all = read(write(rows));
    const bytes = write(rows);
    const cursor = new TermCursor();
    for (let round = 0; round < 50; round++) {
      cursor.open({ bytes, lens: [] });
      for (let asked = next(100); asked < all[all.length - 1][0] + 50; asked += 1 + next(round % 2 ? 3000 : 60)) {
        const first = all.find(([id]) => id >= asked);
        if (cursor.id >= asked) continue;
        expect(cursor.reach(asked), `${asked}`).to.equal(first !== undefined);
        if (first) expect([cursor.id, [...cursor.tf]]).to.deep.equal(first);
      }
    }
  });

  it('never writes into a table it handed out, and keeps its slab within twice the live tables under edits', () => {
    const slab = new TableSlab();
    const first = write([[1, [1, 1, 1, 1]]], slab);
    const copy = first.slice();
    write([[2, [2, 2, 2, 2]]], slab);
    expect(first).to.deep.equal(copy);

    // Pages of 3,000 distinct terms (~8 KB tables) rewritten 800 times: ~6 MB of tables cut, 0.4 MB live.
    const index = new SearchIndex();
    const version = new Map<number, number>();
    const page = (i: number, n: number) => ({
      path: `p${i}.md`,
      title: `page ${i}`,
      hash: `${i}-${n}`,
      tags: [],
      body: Array.from({ length: 3000 }, (_, k) => `w${k + ((n * 13) % 50)}`).join(' '),
    });
    for (let n = 0; n < 850; n++) {
      index.upsert(page(n % 50, n));
      version.set(n % 50, n);
    }
    const live = index.docs.reduce((sum, doc) => sum + (doc?.terms.bytes.length ?? 0), 0);
    expect(index.stats.slab.allocated, 'slab bytes').to.be.at.most(2 * live + 4 * 2 ** 20 + 256 * 1024);
    const fresh = new SearchIndex();
    for (const [i, n] of version) fresh.upsert(page(i, n));
    for (const q of ['w5 w3020', 'w49', 'page 7']) expect(index.search(q).results, q).to.deep.equal(fresh.search(q).results);
  });
});
