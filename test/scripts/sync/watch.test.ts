import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentReporter } from '../../../scripts/sync/progress.js';
import { SyncClient } from '../../../scripts/sync/sync-client.js';
import { watchFolder } from '../../../scripts/sync/watch.js';
import type { TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { folderFiles, put, serverPages, syncSuite, writePage } from './sync-helpers.js';

describe('quire sync --watch', function () {
  this.timeout(120_000);

  // Two clients and a REST writer converging on overlapping paths: convergence.soak.test.ts.
  describe('in one folder', () => {
    let server: TestServer;
    let dir: string;
    let owner: string;
    let device: string;
    syncSuite(
      (suite) =>
        ({
          server,
          dirs: [dir],
          owner,
          device,
        } = suite),
      { keys: true },
    );

    async function onServer(path: string, text: string): Promise<void> {
      await until(`${path} to reach the server`, 5_000, async () => (await serverPages(server, owner)).get(path)?.includes(text));
    }

    it('sends an edit made in place to a file it downloaded over an older one, and files in folders made while it watches', async () => {
      await writePage(server, owner, 'a.md', 'one\n');
      const client = await SyncClient.open({ dir, server: server.url, key: device, report: silentReporter });
      const stop = new AbortController();
      const watching = watchFolder(client, { signal: stop.signal, report: silentReporter, settleMs: 50 });
      try {
        await until('the first download', 5_000, () => folderFiles(dir).get('a.md') === 'one\n');
        // The download replaces the file by a rename: a watch on the file would be left on the old one.
        await writePage(server, owner, 'a.md', 'two\n');
        await until('the second download', 5_000, () => folderFiles(dir).get('a.md') === 'two\n');
        // Past the pass that the download's own events start: the edit must be noticed by itself.
        await sleep(1_000);
        appendFileSync(`${dir}/a.md`, 'three\n');
        await onServer('a.md', 'two\nthree\n');
        put(dir, 'new/deeper/b.md', 'made here\n');
        await onServer('new/deeper/b.md', 'made here\n');
        appendFileSync(`${dir}/new/deeper/b.md`, 'and again\n');
        await onServer('new/deeper/b.md', 'made here\nand again\n');
      } finally {
        stop.abort();
        await watching;
        client.close();
      }
    });
  });
});
