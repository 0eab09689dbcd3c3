import type { TestServer } from '../../helpers/test-server.js';
import { convergence } from './convergence.js';
import { syncSuite } from './sync-helpers.js';

describe('quire sync --watch: 60 s of two clients and a REST writer on overlapping paths (soak)', function () {
  this.timeout(300_000);
  let server: TestServer;
  let dirs: string[];
  syncSuite((suite) => ({ server, dirs } = suite), { folders: 2 });

  it('within 10 s of the last write both folders equal the vault, and every marker is at its path or in a conflict copy', async () => {
    await convergence(server, dirs, 60_000, 10_000);
  });
});
