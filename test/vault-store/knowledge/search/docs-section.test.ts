import { expect } from 'chai';
import { docsSection, readDocsSection, type DocFields } from '../../../../vault-store/knowledge/search/docs-section.js';
import { FIELD_COUNT } from '../../../../vault-store/knowledge/search/term-stats.js';

const docs: (DocFields | undefined)[] = [
  { path: 'notes/Café au lait.md', title: 'Café ☕ au lait', hash: 'a'.repeat(40), tags: ['drink', 'fr/paris'] },
  undefined,
  { path: 'x.md', title: '', hash: 'b'.repeat(40), tags: [] },
  { path: '日本/東京.md', title: '東京 😀 \u0000 odd', hash: 'c'.repeat(64), tags: ['', '😀'] },
  undefined,
];

/** What the reader hands over is reused for the next page: a page keeps copies. */
const copy = (_id: number, fields: DocFields): DocFields => ({ ...fields, tags: [...fields.tags] });

async function pieces(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const all: Uint8Array[] = [];
  for await (const piece of stream) all.push(piece);
  return all;
}

async function join(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(Buffer.concat(await pieces(stream)));
}

describe('the docs section', () => {
  const lengths = Uint32Array.from({ length: docs.length * FIELD_COUNT + 8 }, (_, i) => i * 3);

  it('reads back every page as written, holes as holes, strings of any script exactly', async () => {
    const read = readDocsSection(await join(docsSection(docs, lengths)), copy);
    expect(read.docs).to.have.length(docs.length);
    expect(read.docs).to.deep.equal(docs);
    expect(1 in read.docs, 'a hole is an undefined entry, not a missing one').to.equal(true);
    expect([...read.lengths]).to.deep.equal([...lengths.subarray(0, docs.length * FIELD_COUNT)]);
  });

  it('reads back thousands of pages, their text written in several pieces', async () => {
    // Past the 1,024 strings a piece of the text holds, with multi-byte strings on both sides of a cut.
    const pages = [docs[0]!, docs[2]!, docs[3]!];
    const many = Array.from({ length: 3000 }, (_, i) => (i % 7 === 3 ? undefined : { ...pages[i % 3], path: `p${i}/東.md` }));
    const manyLengths = new Uint32Array(many.length * FIELD_COUNT).map((_, i) => i);
    const chunks = await pieces(docsSection(many, manyLengths));
    expect(chunks.length).to.be.greaterThan(4);
    expect(readDocsSection(new Uint8Array(Buffer.concat(chunks)), copy).docs).to.deep.equal(many);
  });

  it('reads an empty index', async () => {
    const read = readDocsSection(await join(docsSection([], new Uint32Array(0))), copy);
    expect(read.docs).to.deep.equal([]);
    expect(read.lengths).to.have.length(0);
  });

  it('throws on a section that does not add up (cut short, or strings missing)', async () => {
    const bytes = await join(docsSection(docs, lengths));
    expect(() => readDocsSection(bytes.subarray(0, 12), copy)).to.throw();
    expect(() => readDocsSection(bytes.subarray(0, bytes.length - 5), copy)).to.throw();
    expect(() => readDocsSection(new Uint8Array(3), copy)).to.throw();
  });
});
