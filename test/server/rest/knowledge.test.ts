import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';

describe('REST knowledge layer', () => {
  let server: TestServer;
  let key: string;

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write');
  });
  afterEach(() => server.stop());

  const get = async (path: string) => {
    const res = await server.api(path, { key });
    expect(res.status, `${path}: ${res.status}`).to.equal(200);
    return res.json();
  };
  const post = (path: string, json: unknown) => server.api(path, { method: 'POST', key, json });
  const write = (path: string, content: string) => post('/vault/page', { path, content });

  it('finds a page right after a write, and stops finding text once it is deleted', async () => {
    const { commit } = await (await write('notes/zebra.md', '# Zebra facts\nStripes confuse flies.')).json();
    const found = await get('/vault/search?q=stripes');
    expect(found.results[0]).to.include({ path: 'notes/zebra.md', title: 'Zebra facts' });
    expect(found.results[0].snippet).to.include('**Stripes**');
    expect(found.indexed_commit).to.equal(commit);
    await write('notes/zebra.md', '# Zebra facts\nNothing here now.');
    expect((await get('/vault/search?q=stripes')).results).to.have.length(0);
    await server.api('/vault/page/notes/zebra.md', { method: 'DELETE', key });
    expect((await get('/vault/search?q=zebra')).results).to.have.length(0);
  });

  it('finds text written directly into the working tree once the watcher commits it', async () => {
    await write('seed.md', 'seed');
    writeFileSync(join(vaultDir(server.dataDir, 'alice'), 'typed-in-obsidian.md'), '# Offline\nquokka sightings\n');
    const deadline = Date.now() + 10_000;
    let results: { path: string }[] = [];
    while (Date.now() < deadline) {
      results = (await get('/vault/search?q=quokka')).results;
      if (results.length) break;
      await sleep(100);
    }
    expect(results.map((r) => r.path)).to.deep.equal(['typed-in-obsidian.md']);
  });

  it('keeps graph and backlinks right through a move (links rewritten in the same commit) and a delete', async () => {
    await write('Target.md', '# Target');
    await write('a.md', 'See [[Target]] and [[Target|the target]] and [md](Target.md).');
    await write('b.md', 'Also [[Target#Part]].');
    expect((await get('/vault/backlinks/Target.md')).backlinks.map((b: { path: string }) => b.path)).to.deep.equal(['a.md', 'b.md']);

    const moved = await (await post('/vault/move', { from: 'Target.md', to: 'archive/Renamed.md' })).json();
    expect(moved.rewritten).to.deep.equal(['a.md', 'b.md']);
    expect((await get('/vault/page/a.md')).content).to.equal('See [[Renamed]] and [[Renamed|the target]] and [md](archive/Renamed.md).');
    expect((await get('/vault/page/b.md')).content).to.equal('Also [[Renamed#Part]].');
    expect((await get('/vault/backlinks/archive/Renamed.md')).backlinks).to.have.length(2);
    expect((await server.api('/vault/backlinks/Target.md', { key })).status).to.equal(404);

    const graph = await get('/vault/graph');
    expect(graph.edges).to.deep.include({ source: 'a.md', target: 'archive/Renamed.md', kind: 'wiki' });
    await server.api('/vault/page/archive/Renamed.md', { method: 'DELETE', key });
    const after = await get('/vault/graph');
    expect(after.edges).to.deep.equal([]);
    expect(after.unresolved).to.deep.include({ source: 'a.md', target: 'Renamed' });
  });

  it('appends, patches by heading and by find, outlines and batch-reads pages', async () => {
    const { hash } = await (await write('log.md', '# Log\n## Monday\nran\n## Tuesday\nswam\n')).json();
    const appended = await (await post('/vault/append', { path: 'log.md', text: 'cycled', heading: 'Monday', base_hash: hash })).json();
    expect(appended.content).to.equal('# Log\n## Monday\nran\ncycled\n\n## Tuesday\nswam\n');
    const patched = await (
      await post('/vault/patch', { path: 'log.md', heading: '## tuesday', replace: 'rested', base_hash: appended.hash })
    ).json();
    expect(patched.content).to.equal('# Log\n## Monday\nran\ncycled\n\n## Tuesday\nrested\n');
    const stale = await post('/vault/patch', { path: 'log.md', find: 'ran', replace: 'jogged', base_hash: hash });
    expect(stale.status).to.equal(409);
    const spanned = await (
      await post('/vault/patch', { path: 'log.md', find: 'cycled', replace: 'biked', base_hash: patched.hash })
    ).json();
    expect(spanned.content).to.include('biked');
    const ambiguous = await post('/vault/patch', { path: 'log.md', find: '##', replace: 'x', base_hash: spanned.hash });
    expect(await ambiguous.json()).to.include({ code: 'INVALID_REQUEST', field: 'find' });
    const both = await post('/vault/patch', { path: 'log.md', find: 'a', heading: 'b', replace: 'x', base_hash: spanned.hash });
    expect(both.status).to.equal(400);

    const outline = await get('/vault/outline/log.md');
    expect(outline.headings).to.deep.equal([
      { level: 1, text: 'Log', start_line: 1, end_line: 8 },
      { level: 2, text: 'Monday', start_line: 2, end_line: 5 },
      { level: 2, text: 'Tuesday', start_line: 6, end_line: 8 },
    ]);
    const batch = await (await post('/vault/pages/batch', { paths: ['log', 'missing.md'] })).json();
    expect(batch.pages.map((p: { path: string }) => p.path)).to.deep.equal(['log.md']);
    expect(batch.missing).to.deep.equal(['missing.md']);
  });

  it('reports tags, lint findings, stats, health, and rebuilds the index to the same results', async () => {
    await write('one.md', '---\ntags: [garden]\n---\n# One\nLinks to [[Nowhere]] about #compost');
    await write('two.md', '# Two\n#garden beds and [[one]]');
    const tags = await get('/vault/tags');
    expect(tags.tags[0]).to.deep.equal({ tag: 'garden', pages: 2 });
    const lint = await get('/vault/lint');
    expect(lint.findings).to.deep.include({
      rule: 'broken-link',
      path: 'one.md',
      message: lint.findings.find((f: { rule: string }) => f.rule === 'broken-link').message,
      line: 5,
    });
    expect(lint.counts['broken-link']).to.equal(1);
    const stats = await get('/vault/stats');
    expect(stats).to.include({ pages: 2, commits: 3 });
    const health = await get('/vault/health');
    expect(health.status).to.equal('ok');
    expect(health.index.fresh).to.equal(true);
    expect(health.index.indexed_commit).to.equal(health.git.head);
    expect(health.lint['broken-link']).to.equal(1);
    // The report is kept until the next commit: one that adds the missing page clears the finding.
    await write('Nowhere.md', '# Nowhere\nNow somewhere.');
    expect((await get('/vault/health')).lint['broken-link']).to.equal(0);
    expect((await get('/vault/lint')).counts['broken-link']).to.equal(0);
    const before = await get('/vault/search?q=garden');
    const rebuilt = await (await post('/vault/index/rebuild', {})).json();
    expect(rebuilt.pages).to.equal(3);
    expect(await get('/vault/search?q=garden')).to.deep.equal(before);
  });
});
