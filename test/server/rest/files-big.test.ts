import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { gitIn } from '../../helpers/temp-vault.js';
import { waitFor } from '../../vault-store/watcher/helpers.js';
import { AUTHOR } from '../git-http/git-client.js';
import { pushSetupPerTest } from '../git-http/push-setup.js';

const MIB = 1024 * 1024;

/** What `git hash-object` says of some bytes. */
const blobId = (bytes: Buffer) => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

/** A few MiB: above the size from which working files are hashed and stored as streams (1 MiB). */
const big = (mib: number) => randomBytes(mib * MIB);

describe('REST files: big files in the folder and in packs', () => {
  const setup = pushSetupPerTest({}, (c) => {
    c.plans.personal.max_file_bytes = 64 * MIB;
    return c;
  });
  const api = (path: string, init: Parameters<typeof setup.server.api>[1] = {}) => setup.server.api(path, { key: setup.key, ...init });
  const looseObject = (oid: string) => existsSync(join(setup.vaultDir, '.git/objects', oid.slice(0, 2), oid.slice(2)));
  const fileInfo = async (path: string) =>
    (
      (await (await api(`/vault/files?prefix=${encodeURIComponent(path.slice(0, path.lastIndexOf('/') + 1))}&limit=1000`)).json())
        .files as { path: string; hash: string; size: number }[]
    ).find((f) => f.path === path);

  it('serves a file pushed in a kept pack, and again after git gc: whole, a range and its size, from the pack', async function () {
    this.timeout(60_000);
    const bytes = big(3);
    // More objects than receive.unpackLimit (100): the server keeps the pack as it came.
    mkdirSync(join(setup.client, 'many'));
    for (let i = 0; i < 120; i++) writeFileSync(join(setup.client, `many/p${i}.md`), `page ${i}`);
    mkdirSync(join(setup.client, 'media'));
    writeFileSync(join(setup.client, 'media/clip.bin'), bytes);
    gitIn(setup.client, 'add', '-A');
    gitIn(setup.client, ...AUTHOR, 'commit', '-q', '-m', 'many pages and a clip');
    const pushed = await setup.push('main');
    expect(pushed.status, pushed.stderr).to.equal(0);
    const oid = blobId(bytes);
    expect(looseObject(oid), 'the blob is in a pack').to.equal(false);

    for (const pass of ['pushed pack', 'after git gc']) {
      if (pass === 'after git gc') gitIn(setup.vaultDir, 'gc', '-q', '--prune=now');
      await waitFor(`${pass}: listed`, async () => ((await fileInfo('media/clip.bin'))?.hash === oid ? true : undefined));
      expect(await fileInfo('media/clip.bin'), pass).to.include({ size: bytes.length });
      const whole = await api('/vault/file/media/clip.bin');
      expect(whole.status, pass).to.equal(200);
      expect(whole.headers.get('content-length')).to.equal(String(bytes.length));
      expect(Buffer.from(await whole.arrayBuffer()).equals(bytes), pass).to.equal(true);
      const part = await api('/vault/file/media/clip.bin', { headers: { range: 'bytes=2000000-2000099' } });
      expect(part.status, pass).to.equal(206);
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(2_000_000, 2_000_100)), pass).to.equal(true);
    }
  });

  it('commits a big file dropped into the folder as git would, with git status clean', async function () {
    this.timeout(30_000);
    const bytes = big(3);
    writeFileSync(join(setup.vaultDir, 'scan.pdf'), bytes);
    await waitFor('the dropped file committed', async () => ((await fileInfo('scan.pdf'))?.hash === blobId(bytes) ? true : undefined));
    expect(gitIn(setup.vaultDir, 'cat-file', '-s', blobId(bytes)).trim()).to.equal(String(bytes.length));
    // The listing follows the commit as it is staged; like `git commit`, the branch moves a
    // moment before `.git/index` is replaced, so the status is waited for, not read at once.
    await waitFor('git status clean', async () => (gitIn(setup.vaultDir, 'status', '--porcelain') === '' ? true : undefined));
  });

  it('keeps an edit made in the folder to a big attachment in history when the API replaces it', async function () {
    this.timeout(30_000);
    const [v1, edited, v3] = [big(2), big(2), big(2)];
    expect((await api('/vault/file/clip.bin', { method: 'PUT', body: v1 })).status).to.equal(201);
    writeFileSync(join(setup.vaultDir, 'clip.bin'), edited);
    const replaced = await api('/vault/file/clip.bin', { method: 'PUT', body: v3 });
    expect(replaced.status).to.equal(200);
    const versions = gitIn(setup.vaultDir, 'log', '--format=%H', '--', 'clip.bin')
      .trim()
      .split('\n')
      .map((commit) => gitIn(setup.vaultDir, 'rev-parse', `${commit}:clip.bin`).trim());
    expect(versions).to.deep.equal([blobId(v3), blobId(edited), blobId(v1)]);
    expect(gitIn(setup.vaultDir, 'status', '--porcelain')).to.equal('');
  });
});
