import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const PAGES: Record<string, string> = {
  'garden/compost.md': '# Compost\nTurn the compost pile every two weeks so it stays aerobic and warm.',
  'garden/beds.md': '# Raised beds\nCedar boards last about ten years in raised beds.',
  'kitchen/bread.md': '# Sourdough\nFeed the starter twice a day before baking bread.',
};

describe('REST ask and similar', () => {
  let server: TestServer;
  let key: string;

  async function seed(s: TestServer) {
    key = await s.key('alice', 'write');
    for (const [path, content] of Object.entries(PAGES)) await s.api('/vault/page', { method: 'POST', key, json: { path, content } });
  }
  afterEach(() => server.stop());

  it('answers extractively and cites the page that holds the answer', async () => {
    server = await startTestServer();
    await seed(server);
    const res = await server.api('/vault/ask', {
      method: 'POST',
      key,
      json: { question: 'How often should I turn the compost?', max_pages: 3 },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-ratelimit-bucket')).to.equal('expensive');
    const body = await res.json();
    expect(body.mode).to.equal('extractive');
    expect(body.citations[0].path).to.equal('garden/compost.md');
    expect(body.answer).to.include('every two weeks');
    const page = await (await server.api('/vault/page/garden/compost.md', { key })).json();
    expect(body.citations[0].hash).to.equal(page.hash);
    const tooMany = await server.api('/vault/ask', { method: 'POST', key, json: { question: 'compost', max_pages: 21 } });
    expect(await tooMany.json()).to.include({ code: 'INVALID_REQUEST', field: 'max_pages' });
  });

  it('finds similar pages by page and by text', async () => {
    server = await startTestServer();
    await seed(server);
    const byPage = await (await server.api('/vault/similar?path=garden/compost.md&limit=2', { key })).json();
    expect(byPage.results.map((r: { path: string }) => r.path)).not.to.include('garden/compost.md');
    const byText = await (
      await server.api(`/vault/similar?text=${encodeURIComponent('starter feeding for sourdough bread')}`, { key })
    ).json();
    expect(byText.results[0].path).to.equal('kitchen/bread.md');
    expect((await server.api('/vault/similar', { key })).status).to.equal(400);
  });

  describe('with an OpenAI-compatible endpoint configured', () => {
    let llm: Server;
    let received: { model: string; messages: { content: string }[] } | undefined;
    let fail = false;

    before(async () => {
      llm = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => {
          received = JSON.parse(body);
          if (fail) {
            res.writeHead(500).end();
            return;
          }
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ choices: [{ message: { content: 'Every two weeks [1].' } }] }));
        });
      });
      await new Promise<void>((r) => llm.listen(0, '127.0.0.1', r));
    });
    after(() => new Promise<void>((r) => llm.close(() => r())));

    it('generates the answer from the retrieved passages and still cites them, falling back when the model fails', async () => {
      const { port } = llm.address() as AddressInfo;
      server = await startTestServer({ QUIRE_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, QUIRE_LLM_MODEL: 'test-model' });
      await seed(server);
      const body = await (
        await server.api('/vault/ask', { method: 'POST', key, json: { question: 'When do I turn the compost?' } })
      ).json();
      expect(body).to.include({ mode: 'generated', answer: 'Every two weeks [1].' });
      expect(body.citations[0].path).to.equal('garden/compost.md');
      expect(received!.model).to.equal('test-model');
      expect(received!.messages[1].content).to.include('Turn the compost pile every two weeks');
      fail = true;
      const fallback = await (
        await server.api('/vault/ask', { method: 'POST', key, json: { question: 'When do I turn the compost?' } })
      ).json();
      expect(fallback.mode).to.equal('extractive');
      expect(fallback.llm_error).to.be.a('string');
      expect(server.logs.filter((line) => line.level === 'warn').map((line) => line.msg)).to.deep.equal([
        'LLM answer failed, answering extractively',
      ]);
      expect(fallback.citations[0].path).to.equal('garden/compost.md');
    });
  });
});
