import { expect } from 'chai';
import { Knowledge } from '../../../../vault-store/knowledge/knowledge.js';
import type { QueryInput } from '../../../../vault-store/knowledge/query/run-query.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../../helpers/temp-vault.js';

const seed = {
  'books/Dune.md': '---\ntype: book\nRating: 5\nread: 2026-03-01\nauthor: "[[Frank Herbert]]"\nDue Date: 2026-12-01\n---\n# Dune\n',
  'books/Emma.md': '---\ntype: book\nrating: 4\nread: 2025-07-15T10:00:00+02:00\nauthor: "[[Jane Austen]]"\n---\n# Emma\n',
  'books/Ulysses.md': '---\ntype: book\nrating: 2\n---\n# Ulysses\n',
  'books/Unread.md': '---\ntype: book\n---\n# Unread\n',
  'people/Frank Herbert.md': '# Frank Herbert\n',
  'people/Acme.md': '# Acme\n',
  'meetings/Kickoff.md': '---\ntags: [meeting/weekly]\nattendees: ["[[Acme]]", "[[Frank Herbert]]"]\n---\n# Kickoff\nWith [[Acme]].\n',
  'meetings/Retro.md': '---\ntags: [meeting]\n---\n# Retro\nNo one.\n',
  'meetings/Lunch.md': '# Lunch\n#meeting with [[Acme]]\n',
  'notes/Broken.md': '---\ntype: [book\n---\n# Broken\n',
  'notes/Mixed.md': '---\nCustom-Key: x\ncustom-key: y\nlist: [1, 2]\n---\n# Mixed\n',
};

describe('Knowledge.query', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let indexDir: { path: string; cleanup: () => void };
  let knowledge: Knowledge;
  const all = () => true;
  const query = (input: Partial<QueryInput>, visible: (p: string) => boolean = all, budgetMs = 2000) =>
    knowledge.query({ limit: 100, ...input }, visible, budgetMs);
  const paths = async (input: Partial<QueryInput>, visible?: (p: string) => boolean) =>
    (await query(input, visible)).rows.map((r) => r.path);

  before(async () => {
    ctx = await tempVault(seed);
    indexDir = tempDir('quire-index-');
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
  });
  after(async () => {
    await knowledge.close();
    ctx.cleanup();
    indexDir.cleanup();
  });

  it('finds books rated 4 or more, newest first, with typed fields and case-folded keys', async () => {
    const result = await query({
      where: { and: [{ '==': [{ var: 'type' }, 'book'] }, { '>=': [{ var: 'RATING' }, 4] }] },
      sort: [{ field: 'read', dir: 'desc' }],
      fields: ['rating', 'read'],
    });
    expect(result.rows).to.deep.equal([
      { path: 'books/Dune.md', title: 'Dune', rating: 5, read: '2026-03-01' },
      { path: 'books/Emma.md', title: 'Emma', rating: 4, read: '2025-07-15T10:00:00+02:00' },
    ]);
    expect(result.total).to.equal(2);
    expect(result.next_cursor).to.equal(null);
    expect(result.indexed_commit).to.equal(ctx.vault.head);
  });

  it('compares ISO dates as dates, whatever their spelling', async () => {
    expect(await paths({ where: { '<': [{ var: 'read' }, '2025-07-15T09:00:00Z'] } })).to.deep.equal(['books/Emma.md']);
    expect(await paths({ where: { '==': [{ var: 'read' }, '2026-03-01T00:00Z'] } })).to.deep.equal(['books/Dune.md']);
  });

  it('reads field names with spaces and dashes', async () => {
    expect(await paths({ where: { '==': [{ var: 'due date' }, '2026-12-01'] } })).to.deep.equal(['books/Dune.md']);
    expect(await paths({ where: { '==': [{ var: 'custom-key' }, 'x'] } })).to.deep.equal(['notes/Mixed.md']);
  });

  it('compares a wiki-link field by the path it resolves to', async () => {
    expect(await paths({ where: { '==': [{ var: 'author' }, 'people/Frank Herbert.md'] } })).to.deep.equal(['books/Dune.md']);
    expect(await paths({ where: { '==': [{ var: 'author' }, '[[frank herbert]]'] } })).to.deep.equal(['books/Dune.md']);
    expect(await paths({ where: { in: ['[[Acme]]', { var: 'attendees' }] } })).to.deep.equal(['meetings/Kickoff.md']);
  });

  it('starts from a folder, a tag with its nested tags, pages linking to a page, and pages it links to', async () => {
    expect(await paths({ from: 'books' })).to.have.length(4);
    expect(await paths({ from: '#meeting' })).to.deep.equal(['meetings/Kickoff.md', 'meetings/Lunch.md', 'meetings/Retro.md']);
    expect(await paths({ from: '#meeting', where: { in: ['[[Acme]]', { var: 'links' }] } })).to.deep.equal([
      'meetings/Kickoff.md',
      'meetings/Lunch.md',
    ]);
    expect(await paths({ from: '[[Acme]]' })).to.deep.equal(['meetings/Kickoff.md', 'meetings/Lunch.md']);
    expect(await paths({ from: 'outgoing([[Kickoff]])' })).to.deep.equal(['people/Acme.md']);
  });

  it('sorts missing values last in either direction, then by path', async () => {
    const asc = await paths({ from: 'books', sort: [{ field: 'rating' }] });
    expect(asc).to.deep.equal(['books/Ulysses.md', 'books/Emma.md', 'books/Dune.md', 'books/Unread.md']);
    const desc = await paths({ from: 'books', sort: [{ field: 'rating', dir: 'desc' }] });
    expect(desc).to.deep.equal(['books/Dune.md', 'books/Emma.md', 'books/Ulysses.md', 'books/Unread.md']);
  });

  it('pages with a cursor, neither skipping nor repeating rows', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await query({ sort: [{ field: 'size' }], limit: 3, cursor });
      expect(page.total).to.equal(Object.keys(seed).length);
      seen.push(...page.rows.map((r) => r.path));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).to.have.length(Object.keys(seed).length);
    expect(new Set(seen).size).to.equal(seen.length);
  });

  it('refuses a cursor of another query', async () => {
    const page = await query({ sort: [{ field: 'size' }], limit: 1 });
    const err = await query({ sort: [{ field: 'words' }], limit: 1, cursor: page.next_cursor! }).catch((e: unknown) => e);
    expect(err).to.have.property('code', 'INVALID_CURSOR');
  });

  it('treats front-matter that does not parse as no fields', async () => {
    expect(await paths({ where: { '==': [{ var: 'type' }, 'book'] }, from: 'notes' })).to.deep.equal([]);
    expect((await query({ from: 'notes/Broken.md'.replace('/Broken.md', ''), fields: ['type'] })).rows[0]).to.deep.equal({
      path: 'notes/Broken.md',
      title: 'Broken',
    });
  });

  it('answers every front-matter field when fields is omitted, the first of two keys folding alike', async () => {
    const { rows } = await query({ from: 'notes', where: { '==': [{ var: 'path' }, 'notes/Mixed.md'] } });
    expect(rows).to.deep.equal([{ path: 'notes/Mixed.md', title: 'Mixed', 'custom-key': 'x', list: [1, 2] }]);
  });

  it('shows an agent only the rows it may read, and counts only those', async () => {
    const result = await query({ where: { '==': [{ var: 'type' }, 'book'] } }, (p) => !p.startsWith('books/D'));
    expect(result.rows.map((r) => r.path)).to.deep.equal(['books/Emma.md', 'books/Ulysses.md', 'books/Unread.md']);
    expect(result.total).to.equal(3);
    const err = await query({ from: '[[Acme]]' }, (p) => p !== 'people/Acme.md').catch((e: unknown) => e);
    expect(err).to.have.property('code', 'NOT_FOUND');
  });

  it('refuses a sort on a field no page has, naming it', async () => {
    const err = await query({ sort: [{ field: 'rating' }, { field: 'nope' }] }).catch((e: unknown) => e);
    expect(err).to.have.property('code', 'INVALID_REQUEST');
    expect((err as Error).message).to.contain('sort[1].field');
  });

  it('keeps fields in step with writes, and gives computed dates', async () => {
    // Commit times have whole seconds.
    const before = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString();
    await ctx.pages.write(testAuthor, { path: 'books/New.md', content: '---\ntype: book\nrating: 3\n---\n# New\n' });
    const { rows } = await query({ where: { '==': [{ var: 'rating' }, 3] }, fields: ['created_at', 'updated_at', 'folder'] });
    expect(rows.map((r) => r.path)).to.deep.equal(['books/New.md']);
    expect(rows[0].folder).to.equal('books');
    expect((rows[0].created_at as string) > before, 'created_at').to.equal(true);
    expect((rows[0].updated_at as string) > before, 'updated_at').to.equal(true);
    await ctx.pages.delete(testAuthor, { path: 'books/New.md' });
    expect(await paths({ where: { '==': [{ var: 'rating' }, 3] } })).to.deep.equal([]);
  });

  it('dates creation by the commit that added the page, kept for edits and given to pages added later', async () => {
    const created = async () => new Map((await query({ fields: ['created_at'] })).rows.map((r) => [r.path, r.created_at as string]));
    const first = await created();
    expect([...first.values()].every((at) => /^\d{4}-\d\d-\d\dT/.test(at))).to.equal(true);
    await ctx.pages.write(testAuthor, { path: 'books/Dune.md', content: '---\ntype: book\nrating: 5\n---\n# Dune\n' });
    await ctx.pages.write(testAuthor, { path: 'books/Later.md', content: '# Later\n' });
    const second = await created();
    expect(second.get('books/Dune.md')).to.equal(first.get('books/Dune.md'));
    expect(second.get('books/Later.md')).to.be.a('string');
    await ctx.pages.delete(testAuthor, { path: 'books/Later.md' });
    await ctx.pages.write(testAuthor, { path: 'books/Dune.md', content: seed['books/Dune.md'] });
  });

  it('refuses a query that outlives its time budget', async () => {
    for (let i = 0; i < 260; i++) await ctx.pages.write(testAuthor, { path: `bulk/p${i}.md`, content: `# P${i}\n` });
    const err = await query({ where: { '==': [{ var: 'type' }, 'x'] } }, all, 0).catch((e: unknown) => e);
    expect(err).to.have.property('code', 'INVALID_REQUEST');
    expect((err as Error).message).to.contain('ms');
  });
});

describe('Knowledge fields, persisted', () => {
  it('answers a query after a warm open exactly as after the build, and catches up with commits made meanwhile', async () => {
    const ctx = await tempVault(seed);
    const indexDir = tempDir('quire-index-');
    const input: QueryInput = { where: { '>=': [{ var: 'rating' }, 2] }, sort: [{ field: 'rating' }], limit: 10 };
    try {
      const built = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
      const before = await built.query(input, () => true, 2000);
      await built.close();
      const warm = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
      expect(warm.loadedFrom).to.equal('persisted');
      expect(await warm.query(input, () => true, 2000)).to.deep.equal(before);
      await warm.close();
      await ctx.pages.write(testAuthor, { path: 'books/Late.md', content: '---\nrating: 3\n---\n# Late\n' });
      const caughtUp = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
      expect(caughtUp.loadedFrom).to.equal('incremental');
      const paths = (await caughtUp.query(input, () => true, 2000)).rows.map((r) => r.path);
      expect(paths).to.deep.equal(['books/Ulysses.md', 'books/Late.md', 'books/Emma.md', 'books/Dune.md']);
      await caughtUp.close();
    } finally {
      ctx.cleanup();
      indexDir.cleanup();
    }
  });
});
