import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Workspace } from '../../vault-store/workspace.js';
import { tempDir } from '../helpers/temp-dir.js';
import { gitIn, testAuthor } from '../helpers/temp-vault.js';

describe('Workspace', () => {
  let data: ReturnType<typeof tempDir>;
  const open = () => Workspace.open(join(data.path, 'vault'), { indexDir: join(data.path, 'index'), persistDelayMs: false });
  beforeEach(() => (data = tempDir()));
  afterEach(() => data.cleanup());

  it('keeps its parts on one vault: a write is searchable, in the change feed and in the stats at once', async () => {
    const ws = await open();
    const start = ws.head;
    const { page } = await ws.pages.write(testAuthor, { path: 'notes/otter.md', content: '# Otters\nThey hold hands while sleeping.' });
    expect(ws.knowledge.search('otters').results.map((r) => r.path)).to.deep.equal(['notes/otter.md']);
    const feed = await ws.changesSince({ since: start, limit: 10 });
    expect(feed.changes.map((c) => c.paths)).to.deep.equal([[{ path: 'notes/otter.md', op: 'add', hash: page.hash, kind: 'page' }]]);
    expect(await ws.isCommitInHistory(start)).to.equal(true);
    expect(await ws.isAncestor(start, ws.head)).to.equal(true);
    expect(await ws.isAncestor(ws.head, start)).to.equal(false);
    expect(await ws.commitCount())
      .to.equal(Number(gitIn(ws.dir, 'rev-list', '--count', 'HEAD').trim()))
      .and.to.equal(2);
    expect(ws.pagePaths()).to.deep.equal(['notes/otter.md']);
    expect(ws.hasFile('notes/otter.md')).to.equal(true);
    expect(ws.gitdir).to.equal(join(ws.dir, '.git'));
    await ws.close();
  });

  it('persists its index on close and opens from it, at the same head', async () => {
    const first = await open();
    await first.pages.write(testAuthor, { path: 'a.md', content: 'alpha' });
    const head = first.head;
    await first.close();
    expect(existsSync(join(data.path, 'index'))).to.equal(true);
    const again = await open();
    expect(again.head).to.equal(head);
    expect(again.knowledge.loadedFrom).to.equal('persisted');
    expect(again.knowledge.search('alpha').results.map((r) => r.path)).to.deep.equal(['a.md']);
    await again.close();
  });

  it('waits for queued writes before closing', async () => {
    const ws = await open();
    const writes = Array.from({ length: 5 }, (_, i) => ws.pages.write(testAuthor, { path: `p${i}.md`, content: `page ${i}` }));
    await ws.close();
    expect(ws.pendingWrites).to.equal(0);
    await Promise.all(writes);
    const again = await open();
    expect(again.knowledge.loadedFrom, 'the index written at close covers every queued write').to.equal('persisted');
    expect(again.pagePaths()).to.have.length(5);
    await again.close();
  });
  it('closes once however often it is asked (an eviction and a shutdown may meet)', async () => {
    const ws = await open();
    const write = ws.pages.write(testAuthor, { path: 'a.md', content: 'alpha' });
    await Promise.all([ws.close(), ws.close()]);
    await write;
    await ws.close();
    const again = await open();
    expect(again.knowledge.loadedFrom).to.equal('persisted');
    await again.close();
  });

  it('estimates the memory it holds, growing with its pages', async () => {
    const ws = await open();
    const empty = ws.memoryBytes();
    for (let i = 0; i < 20; i++)
      await ws.pages.write(testAuthor, { path: `p${i}.md`, content: `# Page ${i}\n\nwords of page ${i} link to [[p${i + 1}]] #tag${i}\n` });
    const full = ws.memoryBytes();
    expect(full).to.be.greaterThan(empty + 20 * 500);
    await ws.pages.delete(testAuthor, { path: 'p0.md' });
    expect(ws.memoryBytes()).to.be.lessThan(full).and.to.be.greaterThan(empty);
    await ws.close();
  });
});
