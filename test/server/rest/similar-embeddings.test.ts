import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { topicVector } from '../../helpers/topic-model.js';

const PAGES: Record<string, string> = {
  'garden/compost.md': '# Compost\nTurn the compost pile every two weeks.',
  'garden/beds.md': '# Raised beds\nCedar boards last about ten years.',
  'kitchen/bread.md': '# Sourdough\nFeed the starter twice a day.',
};

describe('REST similar with an embeddings endpoint configured', () => {
  let endpoint: Server;
  let server: TestServer;
  const requests: { model: string; input: string[] }[] = [];
  let fail = false;

  before(async () => {
    endpoint = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const request = JSON.parse(body) as { model: string; input: string[] };
        requests.push(request);
        if (fail || req.url !== '/v1/embeddings') return void res.writeHead(fail ? 503 : 404).end();
        // Answered in reverse order: the client must place vectors by `index`.
        const data = request.input.map((text, index) => ({ index, embedding: topicVector(text) }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: data.reverse() }));
      });
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    const { port } = endpoint.address() as AddressInfo;
    server = await startTestServer({ QUIRE_EMBEDDINGS_BASE_URL: `http://127.0.0.1:${port}/v1`, QUIRE_EMBEDDINGS_MODEL: 'embed-test' });
  });
  after(async () => {
    await server?.stop();
    await new Promise<void>((r) => endpoint.close(() => r()));
  });

  it('ranks by meaning once pages are embedded in the background, and by terms when the endpoint fails', async () => {
    const key = await server.key('alice', 'write');
    for (const [path, content] of Object.entries(PAGES)) await server.api('/vault/page', { method: 'POST', key, json: { path, content } });
    const similar = async (q: string) => (await server.api(`/vault/similar?${q}`, { key })).json();
    let body = await similar('text=loaf');
    for (let i = 0; i < 100 && body.embeddings.pending > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      body = await similar('text=loaf');
    }
    expect(body).to.deep.include({ mode: 'embeddings', embeddings: { embedded: 3, pending: 0 } });
    expect(body.results[0].path).to.equal('kitchen/bread.md');
    expect(requests.every((r) => r.model === 'embed-test')).to.equal(true);
    const byPage = await similar('path=garden/compost.md');
    expect(byPage.results.map((r: { path: string }) => r.path)).to.have.members(['garden/beds.md', 'kitchen/bread.md']);
    expect((await server.api('/vault/similar?path=nowhere.md', { key })).status).to.equal(404);

    fail = true;
    const fallback = await similar('text=loaf');
    expect(fallback.mode).to.equal('terms');
    expect(fallback.embeddings.error).to.include('503');
    expect(fallback.results).to.deep.equal([]);
  });
});
