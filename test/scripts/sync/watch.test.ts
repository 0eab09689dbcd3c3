import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { convergence } from './convergence.js';

describe('quire sync --watch: two clients and a REST writer converge (short; the soak test runs 60 s)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let dirs: { path: string; cleanup: () => void }[];

  beforeEach(async () => {
    server = await startTestServer();
    dirs = [tempDir('quire-sync-a-'), tempDir('quire-sync-b-')];
  });

  afterEach(async () => {
    for (const dir of dirs) dir.cleanup();
    await server.stop();
  });

  it('after 8 s of overlapping edits, deletes and renames, both folders equal the vault and no marker is lost', async () => {
    await convergence(server, [dirs[0].path, dirs[1].path], 8_000, 15_000);
  });
});
