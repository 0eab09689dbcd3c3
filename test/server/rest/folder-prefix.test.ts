import { expect } from 'chai';
import { catalog } from '../../../server/ops/catalog.js';
import { folderPrefix } from '../../../server/ops/schemas.js';
import { restRequest } from '../../helpers/rest-request.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/** What each operation taking `prefix` needs besides it; an operation missing here fails. */
const OTHER_INPUT: Record<string, Record<string, unknown>> = {
  list_pages: {},
  list_files: {},
  search: { q: 'plum' },
  list_tasks: { status: 'all' },
  list_deleted: {},
};
/** Operations over pages gone from the vault: they are asked as a user who wrote the same pages and deleted them. */
const OVER_DELETED = new Set(['list_deleted']);

/** Every page holds the search word and a task; only the first two are in the folder notes/. */
const SEED = ['notes/a.md', 'notes/sub/b.md', 'notes-old/x.md', 'notesy.md', 'other/notes/c.md'];

const takesPrefix = catalog.filter((op) => 'prefix' in op.input.shape);

/** Every `path` in a result, wherever the operation puts its list. */
function paths(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(paths);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === 'path' && typeof v === 'string' ? [v] : paths(v)));
}

describe('prefix is a folder on every operation that takes it', () => {
  let server: TestServer;
  let key: string;
  let deleterKey: string;

  before(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write');
    deleterKey = await server.key('bob', 'write');
    for (const path of SEED) {
      await server.api('/vault/page', { method: 'POST', key, json: { path, content: '# Page\n\nplum\n- [ ] plum\n' } });
      await server.api('/vault/page', { method: 'POST', key: deleterKey, json: { path, content: '# Page\n' } });
      await server.api(`/vault/page/${path}`, { method: 'DELETE', key: deleterKey });
    }
  });
  after(() => server.stop());

  it('declares prefix with the one folder schema, so its description is the same everywhere', () => {
    expect(takesPrefix.map((op) => op.name)).to.have.members(Object.keys(OTHER_INPUT));
    for (const op of takesPrefix) expect(op.input.shape.prefix, op.name).to.equal(folderPrefix);
  });

  for (const op of takesPrefix) {
    const call = async (prefix: string) => {
      const { path, init } = restRequest(op, { ...OTHER_INPUT[op.name], prefix });
      const res = await server.api(path, { ...init, key: OVER_DELETED.has(op.name) ? deleterKey : key });
      return { status: res.status, body: await res.json() };
    };

    it(`${op.name}: "notes" and "notes/" both mean the folder notes/ and its subfolders, never notes-old/`, async () => {
      const bare = await call('notes');
      expect(bare.status).to.equal(200);
      expect(paths(bare.body).sort()).to.deep.equal(['notes/a.md', 'notes/sub/b.md']);
      expect(await call('notes/')).to.deep.equal(bare);
      expect(paths((await call('')).body).sort(), 'an empty prefix is the whole vault').to.deep.equal([...SEED].sort());
    });

    it(`${op.name}: refuses a prefix that is no folder path with INVALID_PATH`, async () => {
      const res = await call('../notes');
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('INVALID_PATH');
    });
  }
});
