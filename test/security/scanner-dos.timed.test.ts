import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { guardedRequest } from './healthz-guard.js';

/**
 * Page text is hostile: the markdown scanner reads every page on write, read, index and
 * move, so one long line built to make a regex backtrack must not stall the server for
 * anyone. `"[](x"` × 15,000 blocked the event loop 3.7 s per write with the old link regexes.
 */
describe('security: markdown scanning of hostile pages', function () {
  this.timeout(120_000);
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer();
    key = await server.key('mallory', 'write');
  });
  after(() => server.stop());

  const call = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await server.api(path, { ...init, key });
    return { status: res.status, body: await res.json() };
  };
  /** Runs a request while probing /healthz; returns its answer after checking the server stayed responsive. */
  const guarded = async (path: string, init: { method?: string; json?: unknown } = {}) =>
    JSON.parse((await guardedRequest(server, key, path, init)).text);

  it('writes, reads, searches and moves "[](x" × 15,000 without blocking anyone', async () => {
    const content = `${'[](x'.repeat(15_000)}\n[[Target]] #tagged\n`;
    await guarded('/vault/page', { method: 'POST', json: { path: 'flood.md', content } });
    const page = await guarded('/vault/page/flood.md');
    expect(page).to.include({ content });
    expect(page.links).to.deep.equal(['Target']);
    expect(page.tags).to.deep.equal(['tagged']);
    expect((await guarded('/vault/search?q=tagged')).results.map((r: { path: string }) => r.path)).to.include('flood.md');
    expect(await guarded('/vault/move', { method: 'POST', json: { from: 'flood.md', to: 'moved/flood.md' } })).to.include({
      to: 'moved/flood.md',
    });
  });

  it('indexes, lists and ticks off tasks whose lines are built against the date readers without blocking anyone', async () => {
    const units = ['📅 ✅  2026-1', '[due:: 2026-12-01 (due::', '(due:: 2026-12-01 [due::', ' ✅ 2026-01-01'];
    const lines = units.map((unit) => `- [${unit.startsWith(' ✅') ? 'x' : ' '}] ${unit.repeat(Math.ceil(60_000 / unit.length))}`);
    // Spaces, then a done marker without its date: read again from every space, 100k took 86 s.
    lines.push(`- [x] ${' '.repeat(60_000)}✅ x`);
    const content = `${lines.join('\n')}\n`;
    // Warmed as a running server is (see below).
    await call('/vault/page', { method: 'POST', json: { path: 'warm-up-tasks.md', content } });
    let { hash } = await guarded('/vault/page', { method: 'POST', json: { path: 'tasks.md', content } });
    for (const line of [1, 2, 3, 4, 5]) {
      const status = line >= 4 ? 'open' : 'done';
      ({ hash } = await guarded('/vault/task', { method: 'POST', json: { path: 'tasks.md', line, status, base_hash: hash } }));
    }
    const done = await guarded('/vault/tasks?status=done');
    // The index keeps of a task at most 2,000 characters of its line.
    expect(done.tasks.map((t: { path: string; line: number; text: string }) => [t.path, t.line, t.text.length <= 2_000])).to.deep.equal([
      ['tasks.md', 1, true],
      ['tasks.md', 2, true],
      ['tasks.md', 3, true],
      ['warm-up-tasks.md', 4, true],
      ['warm-up-tasks.md', 5, true],
    ]);
  });

  it('keeps at most 10,000 tasks of a 1 MiB page holding 95k', async () => {
    const content = '- [ ] t #x\n'.repeat(95_000);
    expect((await call('/vault/page', { method: 'POST', json: { path: 'many/every-line.md', content } })).status).to.equal(201);
    expect((await call('/vault/tasks?status=all&prefix=many&limit=1')).body.total).to.equal(10_000);
    // Gone before the guarded rebuild below, which measures the hostile lines' own page: a page
    // of 95k list items costs 75 ms of metadata parsing warm, 195 ms cold (45 / 72 ms before
    // tasks were read), which alone would take the rebuild's pause near the guard's limit.
    expect((await call('/vault/page/many/every-line.md', { method: 'DELETE' })).status).to.equal(200);
  });

  // The plan's page limit (QUIRE_MAX_PAGE_BYTES) defaults to 1 MiB, so the REST API takes the whole page.
  it('writes, reads, outlines, searches, rebuilds and moves a 1 MiB page of hostile lines without blocking anyone', async () => {
    const units = [
      '[',
      '](',
      '[](x',
      '[](x "',
      '[[',
      '[[a|',
      '![',
      '#',
      '#1',
      ' #',
      '(((',
      '"',
      '[[[]',
      '`a``b```c',
      '``` ',
      '# h\n',
      '[x](#a) ',
    ];
    const lines = units.map((unit) => unit.repeat(Math.ceil(60_000 / unit.length)));
    const content = `${lines.join('\n')}\n[[Target]] [link](Target.md)\n`.padEnd(1 << 20, ' ');
    expect(Buffer.byteLength(content)).to.equal(1 << 20);
    await call('/vault/page', { method: 'POST', json: { path: 'Target.md', content: '# Target\n' } });
    // V8 runs code it has not yet compiled ~10x slower: a fresh process's first hostile page
    // costs ~200 ms once, whatever the algorithm. A running server has scanned its vault at
    // start, so the scanner is warmed the same way before the guarded requests.
    await call('/vault/page', { method: 'POST', json: { path: 'warm-up.md', content } });

    await guarded('/vault/page', { method: 'POST', json: { path: 'hostile.md', content } });
    const page = await guarded('/vault/page/hostile.md');
    expect(page.links).to.have.members(['Target', 'Target.md']);
    const outline = await guarded('/vault/outline/hostile.md');
    expect(outline.headings.length).to.be.above(10_000);
    await guarded('/vault/search?q=target');
    await guarded('/vault/index/rebuild', { method: 'POST' });
    const moved = await guarded('/vault/move', { method: 'POST', json: { from: 'Target.md', to: 'archive/Target.md' } });
    expect(moved.rewritten).to.include('hostile.md');
    const after = await guarded('/vault/page/hostile.md');
    expect(after.content.slice(0, 100_000)).to.equal(content.slice(0, 100_000));
    expect(after.content).to.include('[[Target]] [link](archive/Target.md)\n');
  });
});
