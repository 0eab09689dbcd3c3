import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import express, { type RequestHandler } from 'express';
import { lazyHandler, under } from '../../../server/http/lazy-handler.js';

describe('surfaces loaded on first request', () => {
  let server: Server;
  let url: string;
  let builds = 0;
  let failNext = false;

  before(async () => {
    const app = express();
    const build = async (): Promise<RequestHandler> => {
      builds += 1;
      if (failNext) {
        failNext = false;
        throw new Error('load failed');
      }
      const router = express.Router();
      router.get('/mcp', (_req, res) => void res.send('mcp'));
      return router;
    };
    app.use(lazyHandler(build, under('/mcp')));
    app.get('/other', (_req, res) => void res.send('other'));
    app.use(((err, _req, res, _next) => void res.status(500).send((err as Error).message)) as express.ErrorRequestHandler);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('loads nothing for requests outside its paths, loads once for its own, and tries again after a failed load', async () => {
    expect(await (await fetch(`${url}/other`)).text()).to.equal('other');
    expect(await (await fetch(`${url}/mcpx`)).status, 'a longer name is not under /mcp').to.equal(404);
    expect(builds, 'not loaded by other paths').to.equal(0);
    failNext = true;
    const failed = await fetch(`${url}/mcp`);
    expect([failed.status, await failed.text()]).to.deep.equal([500, 'load failed']);
    const answers = await Promise.all([`${url}/mcp`, `${url}/MCP`, `${url}/mcp/`].map(async (u) => (await fetch(u)).text()));
    expect(answers).to.deep.equal(['mcp', 'mcp', 'mcp']);
    expect(builds, 'one failed load, then one for all that came after').to.equal(2);
  });
});
