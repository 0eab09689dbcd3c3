import type { TestServer } from '../../helpers/test-server.js';
import { killedFirstSync } from './crash-scenario.js';
import { syncSuite } from './sync-helpers.js';

describe('quire sync: kill -9 at random points of a 2,000-page first sync (soak)', function () {
  this.timeout(600_000);
  let server: TestServer;
  let dir: string;
  syncSuite((s) => ([server, dir] = [s.server, s.dirs[0]]));

  for (let round = 1; round <= 3; round++) {
    it(`round ${round}: ten kills, then a run to the end: complete, no duplicates, nothing lost`, async () => {
      await killedFirstSync(server, dir, 2000, 10);
    });
  }
});
