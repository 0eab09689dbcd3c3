import type { TestServer } from '../../helpers/test-server.js';
import { killedFirstSync } from './crash-scenario.js';
import { syncSuite } from './sync-helpers.js';

describe('quire sync: kill -9 during a first sync (short; the soak test kills more)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let dir: string;
  syncSuite((s) => ([server, dir] = [s.server, s.dirs[0]]));

  it('a re-run after a kill completes the sync with nothing lost and no duplicate conflict copy', async () => {
    await killedFirstSync(server, dir, 2000, 1);
  });
});
