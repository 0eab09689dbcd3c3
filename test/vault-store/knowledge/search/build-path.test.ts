import { expect } from 'chai';
import { countOfSlot, fromSections, packPostings, type PostingsSections } from '../../../../vault-store/knowledge/search/pack-postings.js';
import { PostingReader } from '../../../../vault-store/knowledge/search/posting-reader.js';
import { Postings } from '../../../../vault-store/knowledge/search/postings.js';
import { FIELDS, TermStats, type DocTerms, type FieldTexts } from '../../../../vault-store/knowledge/search/term-stats.js';
import { scanTerms, tokenize } from '../../../../vault-store/knowledge/search/tokenize.js';
import { Vocabulary } from '../../../../vault-store/knowledge/search/vocabulary.js';
import { scaled } from '../../../helpers/soak.js';

/** Deterministic pseudo-random pages over a small vocabulary, so terms repeat across pages. */
function pages(count: number): FieldTexts[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = Array.from({ length: 60 }, (_, i) => `w${i.toString(36)}x${'ab'.repeat(i % 5)}`);
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() ** 2 * words.length)]).join(' ');
  return Array.from({ length: count }, (_, i) => ({ title: text(3), body: text(20 + (i % 40)), tags: text(2), path: `folder/${text(2)}` }));
}

/** The postings' persisted form, packed first when edits changed them. */
async function packedNow(postings: Postings): Promise<PostingsSections> {
  const snapshot = postings.snapshot();
  return typeof snapshot === 'function' ? snapshot() : snapshot;
}

describe('search build path', () => {
  it('scanTerms yields exactly what tokenize returns, ASCII or not', () => {
    const texts = [
      'Hello, World! 42 foo_bar e-mail',
      `x${'a'.repeat(40)} ${'b'.repeat(40)} end`,
      'Café naïve Ｆｕｌｌ',
      '知识管理 and 日本語テキスト mixed',
      '',
      '  ..  ',
    ];
    for (const text of texts) {
      const scanned: string[] = [];
      scanTerms(text, (source, start, end) => scanned.push(source.slice(start, end)));
      expect(scanned, text).to.deep.equal(tokenize(text));
    }
  });

  it('the vocabulary finds every term it interned, by string or by slice, across growth', () => {
    const vocabulary = new Vocabulary();
    const terms = Array.from({ length: 5000 }, (_, i) => `t${i}`);
    terms.forEach((term, i) => expect(vocabulary.intern(`  ${term}  `, 2, 2 + term.length)).to.equal(i));
    terms.forEach((term, i) => expect(vocabulary.id(term)).to.equal(i));
    expect(vocabulary.intern('t42', 0, 3)).to.equal(42);
    expect(vocabulary.id('t5000')).to.equal(undefined);
    expect(vocabulary.size).to.equal(5000);
  });

  it('Postings list each page in the slot of its count, best slot first, across adds, removes, packing and restoring', async () => {
    const stats = new TermStats();
    const texts = pages(300);
    const tables = texts.map((page) => stats.add(page));
    const docs: ({ terms: DocTerms } | undefined)[] = [];
    let postings = new Postings(docs);
    const put = (id: number, text: number) => {
      if (docs[id]) postings.remove(id, docs[id].terms);
      docs[id] = { terms: tables[text] };
      postings.add(id);
    };
    const drop = (id: number) => {
      postings.remove(id, docs[id]!.terms);
      docs[id] = undefined;
    };
    const live = new Map<number, number>();
    const edits = (round: number) => {
      for (let id = 0; id < 300; id++) if (round === 0 || id % 7 === round) put(id, (id + round * 11) % 300);
      for (let id = round; id < 300; id += 13) drop(id);
      for (const [id, doc] of docs.entries()) {
        if (doc) live.set(id, tables.indexOf(doc.terms));
        else live.delete(id);
      }
    };
    const tokens = new Map<string, string[]>();
    const count = (text: string, term: string) => {
      if (!tokens.has(text)) tokens.set(text, tokenize(text));
      return tokens.get(text)!.filter((t) => t === term).length;
    };
    const sample = [...stats.sorted()].slice(0, scaled(15, 40));
    const [drainedIds, drainedCounts] = [new Int32Array(300), new Int32Array(300)];
    let pastLastSlot = 0;
    const check = (label: string) => {
      for (const term of sample) {
        const termId = stats.id(term)!;
        FIELDS.forEach((field, f) => {
          const walked: [number, number][] = [];
          const counts: number[] = [];
          postings.each(termId, f, (id, slot, n) => void (walked.push([id, slot]), counts.push(n)));
          const holders = [...live]
            .filter(([, text]) => count(texts[text][field], term) > 0)
            .map(([id, text]) => {
              const n = count(texts[text][field], term);
              if (n >= 9) pastLastSlot += 1;
              return [id, n >= 9 ? 0 : 9 - n] as [number, number];
            });
          const bestFirst = holders.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
          expect(walked, `${label}: ${term} in ${field}`).to.deep.equal(bestFirst);
          walked.forEach(([id, slot], i) => {
            expect(counts[i]).to.equal(count(texts[live.get(id)!][field], term));
            if (slot !== 0) expect(countOfSlot(slot)).to.equal(counts[i]);
          });
          // A list decoded whole holds the same postings (base, then overlay), dead pages skipped.
          const n = postings.read(termId, f, new PostingReader()).drain(drainedIds, drainedCounts);
          const drained = Array.from(drainedIds.subarray(0, n), (id, i) => [id, drainedCounts[i]]);
          const byId = (a: number[], b: number[]) => a[0] - b[0];
          expect(drained.sort(byId), `${label}: ${term} in ${field}, whole`).to.deep.equal(
            walked.map(([id], i) => [id, counts[i]]).sort(byId),
          );
        });
        const anyField = (id: number, terms: string[]) => FIELDS.some((f) => terms.every((t) => count(texts[live.get(id)!][f], t) > 0));
        const sorted = (ids: number[]) => ids.sort((a, b) => a - b);
        expect(sorted(postings.candidates([termId], 1e9)), `${label}: ${term}`).to.deep.equal(
          sorted([...live.keys()].filter((id) => anyField(id, [term]))),
        );
        const pair = [term, sample[0]];
        if (term !== sample[0])
          expect(
            sorted(
              postings.candidates(
                pair.map((t) => stats.id(t)!),
                1e9,
              ),
            ),
          ).to.deep.equal(sorted([...live.keys()].filter((id) => anyField(id, pair))));
        // A limit takes each field's first pages in walking order.
        const firsts = new Set<number>();
        for (let f = 0; f < FIELDS.length; f++) {
          let left = 3;
          postings.each(termId, f, (id) => (firsts.add(id), --left > 0));
        }
        expect(sorted(postings.candidates([termId], 3))).to.deep.equal(sorted([...firsts]));
      }
    };
    edits(0);
    check('filed in the overlay');
    const packed = await packedNow(postings);
    check('packed');
    expect(postings.snapshot(), 'unchanged since packed: the arrays as they are').not.to.be.a('function');
    // Packed in blocks of a few terms' postings, the arrays are the same.
    const inBlocks = packPostings(docs, 50);
    expect(inBlocks.starts).to.deep.equal(new Uint32Array(packed['postings-starts'].buffer.slice(0)));
    expect(Buffer.compare(inBlocks.bytes, packed.postings)).to.equal(0);
    const restore = (sections: PostingsSections) =>
      new Postings(
        docs,
        fromSections({
          'postings-starts': sections['postings-starts'].slice(),
          postings: sections.postings.slice(),
          'postings-alive': sections['postings-alive'].slice(),
          'postings-averages': sections['postings-averages'].slice(),
        }),
      );
    postings = restore(packed);
    check('restored');
    // A few pages edited: a save keeps the base as it is and flags those pages' postings in it
    // as dead; a restore files them again from their term tables.
    put(5, 77);
    drop(6);
    live.set(5, 77);
    live.delete(6);
    const light = postings.snapshot();
    if (typeof light === 'function') throw new Error('a few edits repacked the postings');
    expect(Buffer.compare(light.postings, packed.postings), 'the base as it is').to.equal(0);
    expect([light['postings-alive'][4], light['postings-alive'][5], light['postings-alive'][6]]).to.deep.equal([1, 0, 0]);
    postings = restore(light);
    check('restored over a base with dead pages');
    edits(1);
    check('edited over the packed base');
    // A save packs the pages as they were when it was taken, while edits go on.
    const taken = [...docs];
    const snapshot = postings.snapshot();
    if (typeof snapshot !== 'function') throw new Error('edited postings need packing');
    edits(2);
    const saved = await snapshot();
    const then = packPostings(taken);
    expect(Buffer.compare(then.bytes, saved.postings), 'the snapshot holds the pages as taken').to.equal(0);
    check('edited while a snapshot was packed, then based on it');
    await packedNow(postings);
    check('packed again');
    expect(pastLastSlot, 'the sample has counts past the last exact slot').to.be.greaterThan(0);
    expect(() =>
      fromSections({ 'postings-starts': Uint8Array.of(1, 0, 0, 0), postings: new Uint8Array(0), 'postings-alive': new Uint8Array(0) }),
    ).to.throw('inconsistent');
    expect(() => fromSections({ 'postings-starts': packed['postings-starts'], postings: packed.postings }), 'no alive flags').to.throw(
      'inconsistent',
    );
  });
});
