import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

describe('move_page for agents', () => {
  let server: TestServer;
  let owner: string;
  let mirror: string;

  beforeEach(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop' });
    await server.services.agents.put('dana', 'mirror', { mode: 'write', write: ['readwise/'] });
    mirror = await server.key('dana', 'write', { agent: 'mirror', name: 'mirror-key' });
    for (const [path, content] of [
      ['readwise/book.md', '# Book'],
      ['readwise/index.md', '[[book]]'],
    ]) {
      await server.api('/vault/page', { method: 'POST', key: owner, json: { path, content } });
    }
  });
  afterEach(() => server.stop());

  it('moves inside its prefix, rewriting links there', async () => {
    const res = await server.api('/vault/move', {
      method: 'POST',
      key: mirror,
      json: { from: 'readwise/book.md', to: 'readwise/books/Book One.md' },
    });
    expect(res.status).to.equal(200);
    expect((await res.json()).rewritten).to.deep.equal(['readwise/index.md']);
  });

  it('is refused, with nothing changed, when the move would rewrite a page outside its write prefixes', async () => {
    await server.api('/vault/page', { method: 'POST', key: owner, json: { path: 'notes/reading.md', content: 'See [[book]]' } });
    const before = server.services.vaults.get('dana').then((uv) => uv.vault.head);
    const res = await server.api('/vault/move', {
      method: 'POST',
      key: mirror,
      json: { from: 'readwise/book.md', to: 'readwise/renamed.md' },
    });
    expect(res.status).to.equal(403);
    expect(await res.json()).to.include({ code: 'AGENT_FORBIDDEN' });
    expect((await server.services.vaults.get('dana')).vault.head).to.equal(await before);
    expect((await server.api('/vault/page/readwise/book.md', { key: owner })).status).to.equal(200);
  });
});
