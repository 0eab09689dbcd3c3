import { expect } from 'chai';
import { gitIn } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';

describe('REST pages', () => {
  let server: TestServer;
  let key: string;

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write');
  });
  afterEach(() => server.stop());

  const write = (json: unknown, k = key) => server.api('/vault/page', { method: 'POST', key: k, json });
  const commitCount = () => Number(gitIn(vaultDir(server.dataDir, 'alice'), 'rev-list', '--count', 'main').trim());

  it('creates (201), reads, updates (200) and deletes a page, one commit each', async () => {
    const created = await write({
      path: 'notes/idea',
      content: '---\ntags: [x]\n---\n# Big idea\nSee [[Other]] and [rel](../b.md). #inline\n',
    });
    expect(created.status).to.equal(201);
    const page = await created.json();
    expect(page).to.include({ path: 'notes/idea.md', title: 'Big idea' });
    expect(page.hash).to.equal(gitIn(vaultDir(server.dataDir, 'alice'), 'hash-object', 'notes/idea.md').trim());
    expect(page.tags).to.deep.equal(['x', 'inline']);
    expect(page.links).to.deep.equal(['Other', 'b.md']);
    expect(page.commit).to.match(/^[0-9a-f]{40}$/);

    const read = await (await server.api('/vault/page/notes/idea.md', { key })).json();
    expect(read).to.include({ hash: page.hash, content: page.content });

    const updated = await write({ path: 'notes/idea.md', content: 'v2', base_hash: page.hash });
    expect(updated.status).to.equal(200);
    const before = commitCount();
    const same = await write({ path: 'notes/idea.md', content: 'v2' });
    expect(same.status).to.equal(200);
    expect((await same.json()).commit).to.equal(null);
    expect(commitCount()).to.equal(before);

    const del = await server.api('/vault/page/notes/idea.md', { method: 'DELETE', key });
    expect(await del.json()).to.include({ path: 'notes/idea.md', deleted: true });
    expect((await server.api('/vault/page/notes/idea.md', { key })).status).to.equal(404);
    expect((await server.api('/vault/page/notes/idea.md', { method: 'DELETE', key })).status).to.equal(404);
  });

  it("sends a page's blob id as a strong ETag and answers If-None-Match with 304 until the page changes", async () => {
    const page = await (await write({ path: 'cached.md', content: '# Cached\n' })).json();
    const first = await server.api('/vault/page/cached.md', { key });
    expect(first.headers.get('etag')).to.equal(`"${page.hash}"`);
    const again = await server.api('/vault/page/cached.md', { key, headers: { 'if-none-match': `"${page.hash}"` } });
    expect(again.status).to.equal(304);
    expect(await again.text()).to.equal('');
    expect(again.headers.get('x-ratelimit-remaining')).to.not.equal(null);
    await write({ path: 'cached.md', content: '# Changed\n', base_hash: page.hash });
    const changed = await server.api('/vault/page/cached.md', { key, headers: { 'if-none-match': `"${page.hash}"` } });
    expect(changed.status).to.equal(200);
    expect((await changed.json()).content).to.equal('# Changed\n');
    // Other answers carry no validator: express's weak ETags of whole bodies are off.
    expect((await server.api('/vault/pages', { key })).headers.get('etag')).to.equal(null);
  });

  it('answers 409 with the current hash for a stale base_hash and for base_hash null on an existing page', async () => {
    const first = await (await write({ path: 'a.md', content: 'one' })).json();
    await write({ path: 'a.md', content: 'two' });
    const stale = await write({ path: 'a.md', content: 'three', base_hash: first.hash });
    expect(stale.status).to.equal(409);
    const body = await stale.json();
    expect(body.code).to.equal('CONFLICT');
    const current = (await (await server.api('/vault/page/a.md', { key })).json()).hash;
    expect(body.current_hash).to.equal(current);

    const exists = await write({ path: 'a.md', content: 'x', base_hash: null });
    expect(exists.status).to.equal(409);
    expect((await exists.json()).current_hash).to.equal(current);

    const missing = await write({ path: 'nope.md', content: 'x', base_hash: first.hash });
    expect(missing.status).to.equal(409);
    expect((await missing.json()).current_hash).to.equal(null);

    const staleDelete = await server.api(`/vault/page/a.md?base_hash=${first.hash}`, { method: 'DELETE', key });
    expect(staleDelete.status).to.equal(409);
    const bodyDelete = await server.api('/vault/page/a.md', { method: 'DELETE', key, json: { base_hash: current } });
    expect(bodyDelete.status).to.equal(200);
  });

  it('lets exactly one of 50 concurrent writers with the same base_hash win', async () => {
    const base = (await (await write({ path: 'race.md', content: 'start' })).json()).hash;
    const before = commitCount();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => write({ path: 'race.md', content: `writer ${i}`, base_hash: base })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 409)).to.have.length(49);
    expect(commitCount()).to.equal(before + 1);
  });

  it('lands 100 concurrent writes to different pages in a linear history that git fsck and git clone accept', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => write({ path: `bulk/p${i}.md`, content: `page ${i}` })));
    expect(results.every((r) => r.status === 201)).to.equal(true);
    const dir = vaultDir(server.dataDir, 'alice');
    expect(gitIn(dir, 'rev-list', '--merges', '--count', 'main').trim()).to.equal('0');
    expect(commitCount()).to.equal(101);
    gitIn(dir, 'fsck', '--strict', '--no-dangling');
    const clone = `${server.dataDir}/clone`;
    gitIn(server.dataDir, 'clone', '-q', dir, clone);
    const files = gitIn(clone, 'ls-files', 'bulk').trim().split('\n');
    expect(files).to.have.length(100);
    for (let i = 0; i < 100; i++) expect(files).to.include(`bulk/p${i}.md`);
  });

  it('captures into capture/YYYY-MM-DD-<slug>.md with a numeric suffix when taken', async () => {
    const one = await server.api('/vault/capture', {
      method: 'POST',
      key,
      json: { title: 'Café idea!', source: 'https://example.com', content: 'Body' },
    });
    expect(one.status).to.equal(201);
    const page = await one.json();
    const day = new Date().toISOString().slice(0, 10);
    expect(page.path).to.equal(`capture/${day}-cafe-idea.md`);
    expect(page.frontmatter).to.include({ title: 'Café idea!', source: 'https://example.com' });
    expect(page.frontmatter.captured_at).to.be.a('string');
    const two = await (await server.api('/vault/capture', { method: 'POST', key, json: { title: 'Café idea!', content: 'Again' } })).json();
    expect(two.path).to.equal(`capture/${day}-cafe-idea-2.md`);
  });

  it('lists pages sorted by path with prefix, limit and cursor', async () => {
    for (const p of ['b/2.md', 'a.md', 'b/1.md', 'c.md', 'b/3.md']) await write({ path: p, content: p });
    const first = await (await server.api('/vault/pages?prefix=b/&limit=2', { key })).json();
    expect(first.pages.map((p: { path: string }) => p.path)).to.deep.equal(['b/1.md', 'b/2.md']);
    expect(first.pages[0]).to.have.keys('path', 'hash', 'title', 'size', 'tags', 'updated_at');
    const second = await (await server.api(`/vault/pages?prefix=b/&limit=2&cursor=${first.next_cursor}`, { key })).json();
    expect(second.pages.map((p: { path: string }) => p.path)).to.deep.equal(['b/3.md']);
    expect(second.next_cursor).to.equal(null);
    expect((await server.api('/vault/pages?limit=1001', { key })).status).to.equal(400);
  });

  it('refuses a page that differs only in case from an existing one', async () => {
    await write({ path: 'Notes/Plan.md', content: 'x' });
    const res = await write({ path: 'notes/plan.md', content: 'y' });
    expect(res.status).to.equal(409);
    expect(await res.json()).to.include({ code: 'CASE_COLLISION', existing_path: 'Notes/Plan.md' });
  });
});
