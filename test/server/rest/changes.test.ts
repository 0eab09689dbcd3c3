import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { scaled } from '../../helpers/soak.js';

interface Feed {
  head: string;
  cursor: string;
  has_more: boolean;
  changes: { commit: string; actor: string; paths: { path: string; op: string; hash: string | null }[] }[];
}

/** Batches of ten concurrent writes (500 writes when soaking). */
const BATCHES = scaled(8, 50);

describe('REST change log', function () {
  this.timeout(60_000);
  let server: TestServer;
  let writer: string;

  beforeEach(async () => {
    server = await startTestServer();
    writer = await server.key('alice', 'write', { name: 'writer', plan: 'pro' });
  });
  afterEach(() => server.stop());

  const write = (path: string, content: string) => server.api('/vault/page', { method: 'POST', key: writer, json: { path, content } });
  const feed = async (key: string, query = ''): Promise<Feed> => {
    const res = await server.api(`/vault/changes${query}`, { key });
    expect(res.status, await res.clone().text()).to.equal(200);
    return res.json();
  };
  const serverState = async () => {
    const { pages } = await (await server.api('/vault/pages?limit=1000', { key: writer })).json();
    return Object.fromEntries(pages.map((p: { path: string; hash: string }) => [p.path, p.hash]));
  };

  it(`gives a new device a snapshot, then lets it follow ${BATCHES * 10} concurrent writes to exactly the server state`, async () => {
    for (let i = 0; i < 5; i++) await write(`seed/${i}.md`, `seed ${i}`);
    const device = await server.key('alice', 'read', { device: true, name: 'phone' });
    const first = await feed(device);
    expect(first.changes).to.have.length(1);
    expect(first.changes[0].commit).to.equal(first.head);
    expect(first.changes[0].paths.every((p) => p.op === 'add')).to.equal(true);
    const local: Record<string, string> = Object.fromEntries(first.changes[0].paths.map((p) => [p.path, p.hash!]));

    const writes = (async () => {
      for (let batch = 0; batch < BATCHES; batch++) {
        await Promise.all(
          Array.from({ length: 10 }, (_, j) => {
            const n = batch * 10 + j;
            const path = `live/p${n % 37}.md`;
            return n % 9 === 8 ? server.api(`/vault/page/${path}`, { method: 'DELETE', key: writer }) : write(path, `version ${n}`);
          }),
        );
      }
    })();
    let cursor = first.cursor;
    let done = false;
    void writes.then(() => {
      done = true;
    });
    for (;;) {
      // Read before asking: a page requested after every write has landed must end at the final head.
      const writesFinished = done;
      const page = await feed(device, `?since=${cursor}&limit=7`);
      for (const change of page.changes) {
        for (const p of change.paths) {
          if (p.op === 'delete') delete local[p.path];
          else local[p.path] = p.hash!;
        }
      }
      cursor = page.cursor;
      // Polling an idle feed would only burn the sync budget.
      if (page.changes.length === 0) await sleep(20);
      if (writesFinished && !page.has_more && cursor === page.head) break;
    }
    await writes;
    const final = await feed(device, `?since=${cursor}`);
    expect(final.changes).to.deep.equal([]);
    expect(local).to.deep.equal(await serverState());
  });

  it('names the actor, and answers 410 CURSOR_UNKNOWN for a commit outside this history', async () => {
    const start = (await feed(writer)).cursor;
    await write('a.md', 'x');
    const page = await feed(writer, `?since=${start}`);
    expect(page.changes[0].actor).to.equal('key:writer');
    expect(page.changes[0].paths).to.deep.equal([{ path: 'a.md', op: 'add', hash: page.changes[0].paths[0].hash, kind: 'page' }]);
    const res = await server.api(`/vault/changes?since=${'1'.repeat(40)}`, { key: writer });
    expect(res.status).to.equal(410);
    expect((await res.json()).code).to.equal('CURSOR_UNKNOWN');
  });

  it('enforces the ack rules and keeps a device cursor across restarts', async () => {
    const device = await server.key('alice', 'read', { device: true, name: 'laptop' });
    const ack = (key: string, cursor: string) => server.api('/vault/changes/ack', { method: 'POST', key, json: { cursor } });
    const c1 = (await (await write('a.md', 'one')).json()).commit;
    const c2 = (await (await write('a.md', 'two')).json()).commit;

    const notDevice = await ack(writer, c1);
    expect(notDevice.status).to.equal(403);
    expect((await notDevice.json()).code).to.equal('DEVICE_ONLY');
    const foreign = await ack(device, 'f'.repeat(40));
    expect(foreign.status).to.equal(400);
    expect((await foreign.json()).code).to.equal('INVALID_CURSOR');

    expect((await ack(device, c2)).status).to.equal(200);
    const back = await ack(device, c1);
    expect(back.status).to.equal(409);
    expect(await back.json()).to.include({ code: 'CURSOR_REGRESSION', current_cursor: c2 });

    const c3 = (await (await write('b.md', 'three')).json()).commit;
    const next = await feed(device);
    expect(next.changes.map((c) => c.commit)).to.deep.equal([c3]);
    const id = (await server.services.accounts.keys('alice')).find((k) => k.name === 'laptop')!.id;
    expect((await server.services.usage.get(id)).cursor).to.equal(c2);
  });
});
