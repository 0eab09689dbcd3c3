import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { convergence } from './convergence.js';

describe('quire sync --watch: 60 s of two clients and a REST writer on overlapping paths (soak)', function () {
  this.timeout(300_000);
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

  it('within 10 s of the last write both folders equal the vault, and every marker is at its path or in a conflict copy', async () => {
    await convergence(server, [dirs[0].path, dirs[1].path], 60_000, 10_000);
  });
});
