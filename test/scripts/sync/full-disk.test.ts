import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { SyncError } from '../../../scripts/sync/sync-error.js';
import { syncOnce } from './sync-helpers.js';

/** Mounts a 1 MiB tmpfs at `dir`; false where that is not allowed (it needs root, or CAP_SYS_ADMIN). */
function mountTinyDisk(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('quire sync: a full disk', () => {
  let server: TestServer;
  let owner: string;
  let device: string;
  let dir: { path: string; cleanup: () => void };
  let mounted = false;

  beforeEach(async function () {
    dir = tempDir('quire-sync-disk-');
    mounted = mountTinyDisk(dir.path);
    if (!mounted) {
      dir.cleanup();
      // A clear reason in the output rather than a silent pass: this machine cannot make a tiny file system.
      console.warn('    (skipped: mounting a 1 MiB tmpfs needs root or CAP_SYS_ADMIN)');
      this.skip();
    }
    server = await startTestServer();
    owner = await server.key('ana', 'write');
    device = await server.key('ana', 'write', { device: true, name: 'laptop' });
  });

  afterEach(async () => {
    if (!mounted) return;
    execFileSync('umount', [dir.path]);
    dir.cleanup();
    await server.stop();
  });

  const putFile = async (path: string, bytes: Buffer) => {
    const res = await server.api(`/vault/file/${path}`, { method: 'PUT', key: owner, body: bytes });
    expect(res.status, await res.text()).to.be.below(300);
  };

  const failure = async (): Promise<SyncError> => {
    try {
      await syncOnce(server, dir.path, device);
    } catch (err) {
      expect(err).to.be.instanceOf(SyncError);
      return err as SyncError;
    }
    throw new Error('expected the sync to stop on the full disk');
  };

  it('stops with a message saying the disk is full, for a file written whole and for a big one streamed to disk', async () => {
    await putFile('scan.png', randomBytes(2 * 1024 * 1024));
    const whole = await failure();
    expect(whole.kind).to.equal('disk');
    expect(whole.message).to.match(/^The disk is full: could not write scan\.png\. Free some space/);

    expect((await server.api('/vault/file/scan.png', { method: 'DELETE', key: owner })).status).to.equal(200);
    await putFile('film.bin', randomBytes(9 * 1024 * 1024));
    const streamed = await failure();
    expect(streamed.kind).to.equal('disk');
    expect(streamed.message).to.match(/^The disk is full: could not write film\.bin\./);
  });
});
