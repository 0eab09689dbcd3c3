import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cli } from '../../helpers/built-script.js';
import type { TestServer } from '../../helpers/test-server.js';
import { seedVault } from './crash-scenario.js';
import { syncSuite } from './sync-helpers.js';

const run = promisify(execFile);

/** util-linux's `script`, which runs a command on a pseudo-terminal; absent on some systems. */
function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A shell word for `script -c`. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

describe('quire sync: what a person sees', () => {
  let server: TestServer;
  let owner: string;
  let device: string;
  let dir: string;
  syncSuite((s) => ([server, owner, device, dir] = [s.server, s.owner, s.device, s.dirs[0]]), { keys: true });
  beforeEach(() => seedVault(server, 'ana', owner, 240));

  it('on a terminal, rewrites one status line with counts, bytes and an ETA, then prints the summary', async function () {
    if (!hasScript()) {
      console.warn('    (skipped: util-linux `script` is needed to run the CLI on a pseudo-terminal)');
      this.skip();
    }
    const command = [process.execPath, ...cli('sync', dir, '--server', server.url, '--key', device, '--once')].map(quote).join(' ');
    const { stdout } = await run('script', ['-qfec', command, '/dev/null']);
    // Each redraw clears the line first (\r, erase to the end) and writes the status again.
    const draws = stdout.split('\r\x1b[K').slice(1);
    expect(draws.length, stdout).to.be.at.least(2);
    for (const draw of draws.filter((d) => d.startsWith('downloading'))) {
      expect(draw).to.match(/^downloading \d+\/240 · \d+\.\d (KiB|MiB)( · ETA \d+ s)?/);
    }
    expect(stdout).to.match(/downloading 240\/240 · \d+\.\d KiB · ETA 0 s/);
    expect(stdout).to.match(/synced: 240 down, 0 up, 0 deleted\r?\n/);
    expect(stdout).not.to.match(/^downloading 240 files$/m); // the plain form is for pipes, not terminals
  });

  it('elsewhere (a pipe), prints plain lines: the phase, then the summary', async () => {
    const { stderr } = await run(process.execPath, cli('sync', dir, '--server', server.url, '--key', device, '--once'));
    expect(stderr).to.equal('downloading 240 files\nsynced: 240 down, 0 up, 0 deleted\n');
  });
});
