import { expect } from 'chai';
import { Bm25 } from '../../../../vault-store/knowledge/search/bm25.js';
import { splitting } from '../../../../vault-store/knowledge/search/pack-postings.js';
import { PostingReader } from '../../../../vault-store/knowledge/search/posting-reader.js';
import { SearchIndex, type IndexedPage } from '../../../../vault-store/knowledge/search/search-index.js';
import { expectExact } from './every-page-scored.js';

/**
 * Two words in most pages' bodies (10 of 11, 11 of 12), up to a dozen times in pages of any
 * length, a third in nearly all (so worth so little beside them that its lists are read late),
 * beside rarer words: their body lists are long enough to be packed as a head of the postings
 * adding most and a tail bounded without being read, which a query leaves unread while the
 * pages met in the heads settle the top.
 */
function pages(count: number, seed: number, from = 0): IndexedPage[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => {
    const r = next();
    return r < 0.01 ? `cax${Math.floor(next() * 9)}` : `w${Math.floor(next() ** 2 * 60)}`;
  };
  const text = (n: number) => Array.from({ length: n }, word).join(' ');
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      path: `${i % 3 ? 'notes' : 'log'}/p${i}.md`,
      title: `w${i % 60} t${i % 997}`,
      hash: `h${seed}-${i}`,
      tags: [],
      body: `${'ca '.repeat(i % 11 ? 1 + ((i * 5) % 13) : 0)}${'cb '.repeat(i % 12 ? 1 + ((i * 5 + (i % 3)) % 13) : 0)}${'cc '.repeat(i % 97 ? 1 + ((i * 3) % 7) : 0)}${text(3 + Math.floor(next() ** 3 * 150))}`,
    };
  });
}

const BODY = 1;
/**
 * Lists are split from 24,576 postings, which a vault reaches at ~30k pages; the pages here
 * are a tenth of that, and so is the split (every list split at 30k is split here, and no other).
 */
const PAGES = 3_000;
const SPLIT_FROM = Math.ceil((splitting.from * PAGES) / 30_000);

describe('search with lists split by impact', function () {
  this.timeout(120_000);
  const index = new SearchIndex();
  const usual = splitting.from;
  before(() => {
    splitting.from = SPLIT_FROM;
    for (const page of pages(PAGES, 7)) index.upsert(page);
  });
  after(() => void (splitting.from = usual));
  // Phrases, a word alone, two words, with a word read late, with a rare word (whose pages the heads seldom hold),
  // a word typed with completions, and a rare word alone with fewer matches than asked for. At this size it is
  // "cc ca" that meets, in a head, pages lacking its other word (at 30k pages "cc cb" did).
  const queries = [
    'ca',
    'cb',
    'ca cb',
    '"ca cb"',
    '"cb ca"',
    'cb cc',
    '"cc cb"',
    '"cc ca"',
    'ca w59',
    'w59 cb',
    '"w2 ca"',
    'cax',
    'cax3 cb',
    'w59',
  ];
  const bm25 = () => new Bm25(index.stats);
  const id = (term: string) => index.stats.id(term)!;

  it('packs the long lists as a head and a bounded tail', () => {
    index.search('ca', { limit: 1 });
    for (const term of ['ca', 'cb', 'cc']) {
      expect(index.postings.tail(id(term), BODY, bm25()), term).to.be.greaterThan(0);
      const head = index.postings.read(id(term), BODY, new PostingReader(), true).drain(new Int32Array(PAGES), new Int32Array(PAGES));
      const whole = index.postings.read(id(term), BODY, new PostingReader()).drain(new Int32Array(PAGES), new Int32Array(PAGES));
      expect(head, term).to.be.within(whole / 20, whole / 8);
    }
    expect(index.postings.tail(id('w59'), BODY, bm25()), 'a short list is whole').to.equal(0);
  });

  it('ranks exactly as scoring every page would, however many results are asked for', () => {
    for (const query of queries) expectExact(index, query, [1, 10, 60, 300, 3000]);
  });

  it('stays exact when a filter after ranking rejects most of the best pages', () => {
    const visible = (path: string) => path.startsWith('log/') || path.endsWith('7.md');
    for (const query of queries) expectExact(index, query, 20, visible);
  });

  it('stays exact over the packed lists as pages are edited, removed and added, and the averages move', () => {
    // Edited pages leave dead postings in the heads and tails and join the overlay; the
    // pages added are far longer than any before, so the body's average length rises
    // several times past the pack's: long pages using a word often, in its tail when packed
    // (their length held them down), now add more than short ones in its head.
    pages(PAGES / 100, 8).forEach((page, i) =>
      index.upsert({ ...page, path: `notes/p${i * 11 + 1}.md`, body: `${'ca '.repeat(i % 40)}${page.body}` }),
    );
    for (let i = 3; i < PAGES; i += 23) index.remove(`log/p${i}.md`);
    const before = index.stats.averageLengths()[BODY];
    const packed = index.postings.tail(id('ca'), BODY, bm25());
    for (const page of pages(PAGES / 20, 9, PAGES + 10_000)) index.upsert({ ...page, body: `${page.body} ${'w1 '.repeat(6_000)}` });
    expect(index.stats.averageLengths()[BODY]).to.be.greaterThan(5 * before);
    expect(index.postings.tail(id('ca'), BODY, bm25()), 'the same packed lists, their bound scaled').to.be.greaterThan(packed);
    for (const query of queries) expectExact(index, query, [1, 10, 60]);
  });
});
