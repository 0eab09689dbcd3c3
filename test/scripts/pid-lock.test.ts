import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockDataDir } from '../../scripts/commands/data-lock.js';
import { pidLock } from '../../scripts/pid-lock.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('pid locks (one server per data folder, one sync client per folder)', () => {
  let dir: { path: string; cleanup: () => void };
  beforeEach(() => (dir = tempDir('quire-lock-')));
  afterEach(() => dir.cleanup());

  const refuse = (pid?: number) => new Error(pid ? `held by ${pid}` : 'not taken');

  it('holds our pid until released, and refuses a second holder while a live process has it', () => {
    const path = join(dir.path, 'lock');
    const release = pidLock(path, refuse);
    expect(readFileSync(path, 'utf8')).to.equal(String(process.pid));
    release();
    expect(existsSync(path)).to.equal(false);
    // The test runner's parent is alive and is not us.
    writeFileSync(path, String(process.ppid));
    expect(() => pidLock(path, refuse)).to.throw(`held by ${process.ppid}`);
    expect(readFileSync(path, 'utf8'), 'a refused lock is left alone').to.equal(String(process.ppid));
  });

  it('takes over a lock whose process is gone (a crash, a kill -9)', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const path = join(dir.path, 'lock');
    writeFileSync(path, gone);
    pidLock(path, refuse)();
    expect(existsSync(path)).to.equal(false);
  });

  it('names the other server that holds a data folder', () => {
    writeFileSync(join(dir.path, 'server.pid'), String(process.ppid));
    expect(() => lockDataDir(dir.path)).to.throw(`Another quire server (pid ${process.ppid}) is using ${dir.path}`);
  });
});
