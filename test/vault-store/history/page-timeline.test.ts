import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { movePage } from '../../../vault-store/edits/move.js';
import { QuireError } from '../../../vault-store/errors.js';
import { Workspace } from '../../../vault-store/workspace.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn, testAuthor } from '../../helpers/temp-vault.js';

const all = () => true;
const noFilter = {};

describe('page timeline (history, past versions, diff, deleted)', () => {
  let data: ReturnType<typeof tempDir>;
  let ws: Workspace;
  beforeEach(async () => {
    data = tempDir();
    ws = await Workspace.open(join(data.path, 'vault'), { indexDir: join(data.path, 'index'), persistDelayMs: false });
  });
  afterEach(async () => {
    await ws.close();
    data.cleanup();
  });

  const write = (path: string, content: string) => ws.pages.write(testAuthor, { path, content });
  const history = (path?: string, extra: { limit?: number; cursor?: string; visible?: (p: string) => boolean } = {}) =>
    ws.timeline.history({ path, limit: extra.limit ?? 50, cursor: extra.cursor, filter: noFilter, visible: extra.visible ?? all });

  it('lists a page created, modified, renamed by move and deleted, newest first, following the rename', async () => {
    const created = await write('notes/a.md', 'one\n');
    const modified = await write('notes/a.md', 'one\ntwo\n');
    const moved = await movePage(ws.pages, ws.knowledge.graph, testAuthor, { from: 'notes/a.md', to: 'archive/a2.md' });
    const again = await write('archive/a2.md', 'one\ntwo\nthree\n');
    const { entries, next_cursor } = await history('archive/a2.md');
    expect(next_cursor).to.equal(null);
    expect(entries.map((e) => [e.commit, e.changes])).to.deep.equal([
      [again.commit, [{ path: 'archive/a2.md', kind: 'modified', hash: again.page.hash }]],
      [moved.commit, [{ path: 'archive/a2.md', kind: 'renamed', hash: moved.hash, from: 'notes/a.md' }]],
      [modified.commit, [{ path: 'notes/a.md', kind: 'modified', hash: modified.page.hash }]],
      [created.commit, [{ path: 'notes/a.md', kind: 'created', hash: created.page.hash }]],
    ]);
    expect(entries[0]).to.include({ actor: 'key:test', message: 'Update archive/a2.md', author: 'key:test' });
    // The old name's own history ends with the rename, told as a delete that says where it went.
    const old = await history('notes/a.md');
    expect(old.entries[0].changes).to.deep.equal([{ path: 'notes/a.md', kind: 'deleted', hash: null, to: 'archive/a2.md' }]);
    // A reader who cannot see the old folder sees the page created at the move.
    const hidden = await history('archive/a2.md', { visible: (p) => p.startsWith('archive/') });
    expect(hidden.entries.map((e) => e.changes[0].kind)).to.deep.equal(['modified', 'created']);
  });

  it('follows a rename made with git mv and committed outside the server, and shows outside authors', async () => {
    await write('x.md', 'same body\n');
    gitIn(ws.dir, 'mv', 'x.md', 'y.md');
    gitIn(ws.dir, '-c', 'user.name=Dana', '-c', 'user.email=d@example.com', 'commit', '-qm', 'Rename by hand');
    const { entries } = await history('y.md');
    expect(entries.map((e) => e.changes[0].kind)).to.deep.equal(['renamed', 'created']);
    expect(entries[0]).to.include({ actor: 'Dana', author: 'Dana', message: 'Rename by hand' });
  });

  it('pages history with an opaque cursor and reads activity across the vault', async () => {
    for (let i = 0; i < 5; i++) await write('p.md', `v${i}`);
    await write('q.md', 'q');
    const first = await history('p.md', { limit: 2 });
    const second = await history('p.md', { limit: 2, cursor: first.next_cursor! });
    const third = await history('p.md', { limit: 2, cursor: second.next_cursor! });
    expect([first, second, third].map((p) => p.entries.length)).to.deep.equal([2, 2, 1]);
    expect(third.next_cursor).to.equal(null);
    expect(new Set([...first.entries, ...second.entries, ...third.entries].map((e) => e.commit)).size).to.equal(5);
    const recent = await history(undefined, { limit: 3 });
    expect(recent.entries.map((e) => e.changes.map((c) => c.path))).to.deep.equal([['q.md'], ['p.md'], ['p.md']]);
    try {
      await history('p.md', { cursor: 'bm90LWEtY3Vyc29y' });
      expect.fail('a forged cursor was accepted');
    } catch (err) {
      expect((err as QuireError).code).to.equal('INVALID_CURSOR');
    }
  });

  it('reads a page at a commit, an abbreviation, a date, the future; before the vault is NOT_FOUND', async () => {
    const v1 = await write('n.md', '# One\n');
    await write('n.md', '# Two\n');
    const at = (ref: string) => ws.readPageAt('n.md', ref, all);
    expect((await at(v1.commit!)).content).to.equal('# One\n');
    expect(await at(v1.commit!.slice(0, 8))).to.include({ content: '# One\n', commit: v1.commit, changed_in: v1.commit, title: 'One' });
    expect((await at('2999-01-01')).content).to.equal('# Two\n');
    expect((await at(new Date(Date.now() + 60_000).toISOString())).content).to.equal('# Two\n');
    for (const ref of ['1999-01-01', 'abcdef0123']) {
      const err = await at(ref).catch((e: QuireError) => e);
      expect(err).to.be.instanceOf(QuireError).with.property('code', 'NOT_FOUND');
    }
    expect(await at('yesterday').catch((e: QuireError) => e.code)).to.equal('INVALID_REQUEST');
  });

  it('diffs two versions by commit or hash, with hunks and front-matter fields; a hash of another page is refused', async () => {
    const v1 = await write('d.md', '---\nstatus: draft\n---\nline 1\nline 2\n');
    const v2 = await write('d.md', '---\nstatus: done\n---\nline 1\nline 2 changed\n');
    const other = await write('other.md', 'unrelated\n');
    const diff = await ws.timeline.diff({ path: 'd.md', from: v1.commit!, visible: all });
    expect(diff.to).to.deep.include({ hash: v2.page.hash, path: 'd.md' });
    expect(diff.frontmatter).to.deep.equal([{ field: 'status', change: 'changed', from: 'draft', to: 'done' }]);
    expect(diff.hunks).to.have.length(1);
    expect(diff.hunks[0].lines).to.include.members(['-line 2', '+line 2 changed']);
    expect(diff.unified).to.match(/^--- a\/d\.md\n\+\+\+ b\/d\.md\n@@ -1,5 \+1,5 @@/);
    const byHash = await ws.timeline.diff({ path: 'd.md', from: v1.page.hash, to: v2.page.hash, visible: all });
    expect(byHash.hunks).to.deep.equal(diff.hunks);
    const err = await ws.timeline.diff({ path: 'd.md', from: other.page.hash, visible: all }).catch((e: QuireError) => e);
    expect(err).to.have.property('code', 'INVALID_REQUEST');
  });

  it('saves its change index on close and opens from it, following commits made while closed', async () => {
    await write('kept.md', 'one\n');
    await history('kept.md');
    await ws.close();
    const file = join(data.path, 'index', 'history.json');
    expect(existsSync(file)).to.equal(true);
    // Marked, to show that the reopened index is the saved one and not a rebuild.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"message":"Update kept.md"', '"message":"From the saved index"'));
    writeFileSync(join(data.path, 'vault', 'kept.md'), 'two\n');
    gitIn(join(data.path, 'vault'), '-c', 'user.name=Dana', '-c', 'user.email=d@example.com', 'commit', '-qam', 'While closed');
    ws = await Workspace.open(join(data.path, 'vault'), { indexDir: join(data.path, 'index'), persistDelayMs: false });
    expect((await history('kept.md')).entries.map((e) => e.message)).to.deep.equal(['While closed', 'From the saved index']);
  });

  it('lists deleted pages with the deleting commit and last hash, and follows a force-push that rewrote history', async () => {
    const gone = await write('trash/old.md', 'bye\n');
    const del = await ws.pages.delete(testAuthor, { path: 'trash/old.md' });
    await write('keep.md', 'k\n');
    const { pages } = await ws.timeline.deleted({ prefix: '', limit: 10, visible: all });
    expect(pages).to.have.length(1);
    expect(pages[0]).to.include({ path: 'trash/old.md', commit: del.commit, last_hash: gone.page.hash });
    // Rewrite: drop the last two commits outside the server; the index follows.
    gitIn(ws.dir, 'reset', '-q', '--hard', gone.commit!);
    writeFileSync(join(ws.dir, 'trash', 'old.md'), 'rewritten\n');
    gitIn(ws.dir, '-c', 'user.name=Dana', '-c', 'user.email=d@example.com', 'commit', '-qam', 'Rewrite');
    expect((await ws.timeline.deleted({ prefix: '', limit: 10, visible: all })).pages).to.deep.equal([]);
    const after = await history('trash/old.md');
    expect(after.entries.map((e) => e.message)).to.deep.equal(['Rewrite', 'Update trash/old.md']);
  });
});
