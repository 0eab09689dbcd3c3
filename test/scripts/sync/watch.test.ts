import type { TestServer } from '../../helpers/test-server.js';
import { convergence } from './convergence.js';
import { syncSuite } from './sync-helpers.js';

describe('quire sync --watch: two clients and a REST writer converge (short; the soak test runs 60 s)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let dirs: string[];
  syncSuite((suite) => ({ server, dirs } = suite), { folders: 2 });

  it('after 8 s of overlapping edits, deletes and renames, both folders equal the vault and no marker is lost', async () => {
    await convergence(server, dirs, 8_000, 15_000);
  });
});
