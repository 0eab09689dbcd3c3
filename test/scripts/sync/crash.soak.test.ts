import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { killedFirstSync } from './crash-scenario.js';

describe('quire sync: kill -9 at random points of a 2,000-page first sync (soak)', function () {
  this.timeout(600_000);
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

  for (let round = 1; round <= 3; round++) {
    it(`round ${round}: ten kills, then a run to the end: complete, no duplicates, nothing lost`, async () => {
      await killedFirstSync(server, dir.path, 2000, 10);
    });
  }
});
