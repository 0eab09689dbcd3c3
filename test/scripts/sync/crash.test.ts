import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { killedFirstSync } from './crash-scenario.js';

describe('quire sync: kill -9 during a first sync (short; the soak test kills more)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let dir: { path: string; cleanup: () => void };

  beforeEach(async () => {
    server = await startTestServer();
    dir = tempDir('quire-sync-');
  });

  afterEach(async () => {
    dir.cleanup();
    await server.stop();
  });

  it('a re-run after a kill completes the sync with nothing lost and no duplicate conflict copy', async () => {
    await killedFirstSync(server, dir.path, 2000, 1);
  });
});
