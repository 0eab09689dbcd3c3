import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { consoleReporter } from '../sync/progress.js';
import { describe, SyncClient } from '../sync/sync-client.js';
import { UsageError } from './usage-error.js';

const USAGE = 'usage: quire sync DIR --server URL --key KEY|- [--watch | --once]   (--key - reads the key from stdin)';

export interface SyncFlags {
  server?: string;
  key?: string;
  watch?: boolean;
  once?: boolean;
}

/** `quire sync`: the reference sync client, over the public API with a device key. */
export async function syncCommand(args: string[], flags: SyncFlags): Promise<void> {
  const [dir, ...extra] = args;
  if (!dir || extra.length || !flags.server || !flags.key || (flags.watch && flags.once)) throw new UsageError(USAGE);
  // "-": the key from stdin, so that it shows neither in `ps` nor in the shell's history.
  const key = flags.key === '-' ? readFileSync(0, 'utf8').trim() : flags.key;
  const report = consoleReporter();
  const client = await SyncClient.open({ dir: resolve(dir), server: flags.server, key, report });
  try {
    if (!flags.watch) {
      report.line(describe(await client.once()));
      return;
    }
    const stop = new AbortController();
    const quit = () => stop.abort();
    process.once('SIGINT', quit);
    process.once('SIGTERM', quit);
    report.line(`watching ${dir} (${client.identity.device} → ${flags.server}); Ctrl-C stops`);
    const { watchFolder } = await import('../sync/watch.js'); // not loaded by a one-off run
    await watchFolder(client, { signal: stop.signal, report });
  } finally {
    client.close();
  }
}
