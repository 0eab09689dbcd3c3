import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { applyCoreConfig, probeFileSystem } from '../../../vault-store/git/fs-probe.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn } from '../../helpers/temp-vault.js';

describe('probeFileSystem and applyCoreConfig', () => {
  let dir: ReturnType<typeof tempDir>;
  let gitdir: string;
  beforeEach(() => {
    dir = tempDir('quire-probe-');
    gitIn(dir.path, 'init', '--quiet');
    gitdir = join(dir.path, '.git');
  });
  afterEach(() => dir.cleanup());

  const core = (key: string) => gitIn(dir.path, 'config', '--get', `core.${key}`).trim();

  it('finds what git init finds on this file system, leaving no scratch file behind', async () => {
    const before = readdirSync(gitdir).sort();

    const probe = await probeFileSystem(gitdir);

    if (process.platform === 'linux') expect(probe).to.deep.equal({ ignorecase: false, symlinks: true, filemode: true });
    // git init wrote its own findings: they agree (git omits ignorecase and symlinks when at their defaults).
    expect(String(probe.filemode)).to.equal(core('filemode'));
    expect(readdirSync(gitdir).sort()).to.deep.equal(before);
  });

  it('corrects a config written on another file system, once', async () => {
    gitIn(dir.path, 'config', 'core.ignorecase', 'true');
    gitIn(dir.path, 'config', 'core.symlinks', 'false');
    gitIn(dir.path, 'config', 'core.filemode', 'false');
    const probe = { ignorecase: false, symlinks: true, filemode: true };

    expect(await applyCoreConfig(gitdir, probe)).to.equal(true);

    expect([core('ignorecase'), core('symlinks'), core('filemode')]).to.deep.equal(['false', 'true', 'true']);
    expect(await applyCoreConfig(gitdir, probe), 'a second call').to.equal(false);
    gitIn(dir.path, 'status', '--short'); // git still reads the config
  });

  it('writes the keys git init left out, and changes nothing when the config already agrees', async () => {
    gitIn(dir.path, 'config', '--unset', 'core.filemode');
    const probe = await probeFileSystem(gitdir);

    expect(await applyCoreConfig(gitdir, probe)).to.equal(true);
    expect(await applyCoreConfig(gitdir, probe)).to.equal(false);
    expect(core('filemode')).to.equal(String(probe.filemode));
    expect(core('symlinks')).to.equal(String(probe.symlinks));
  });
});
