import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileMoved } from '../../../scripts/sync/big-files.js';
import { FilesRemote } from '../../../scripts/sync/files-remote.js';
import { HttpClient } from '../../../scripts/sync/http-client.js';
import { bigFileSuite, blobId, MIB, writeBig, type BigFileSuite } from './big-file-helpers.js';
import { syncOnce } from './sync-helpers.js';

describe('quire sync: big files stream through the client', () => {
  let big: BigFileSuite;
  bigFileSuite((suite) => (big = suite));

  it('keeps both versions of a big file changed on both sides: the server one at the path, ours as a conflict copy', async () => {
    const { server, owner, device, dir, scratch } = big;
    const size = 9 * MIB;
    const first = join(scratch, 'first.bin');
    writeBig(first, size);
    const put = async (file: string) => {
      const res = await server.api('/vault/file/big.bin', { method: 'PUT', key: owner, body: readFileSync(file) });
      expect(res.status, await res.text()).to.be.below(300);
    };
    await put(first);
    await syncOnce(server, dir, device);
    const theirs = join(scratch, 'theirs.bin');
    writeBig(theirs, size);
    await put(theirs);
    writeBig(join(dir, 'big.bin'), size + 1);
    const mine = await blobId(join(dir, 'big.bin'), size + 1);

    const result = await syncOnce(server, dir, device, { now: () => new Date(2026, 10, 26, 15, 3) });
    const copy = 'big (conflict laptop 2026-11-26 1503).bin';
    expect(result.conflicts).to.deep.equal([['big.bin', copy]]);
    expect(await blobId(join(dir, 'big.bin'), size)).to.equal(await blobId(theirs, size));
    expect(await blobId(join(dir, copy), size + 1)).to.equal(mine);
    const sent = await server.api(`/vault/file/${encodeURI(copy)}`, { method: 'HEAD', key: owner });
    expect(sent.headers.get('etag')).to.equal(`"${mine}"`);
  });

  it('sends nothing when a big file no longer has the hash the scan saw: the server commits no torn mix', async () => {
    const { server, owner, device, scratch } = big;
    const file = join(scratch, 'moving.bin');
    writeBig(file, 9 * MIB);
    const remote = new FilesRemote(new HttpClient({ server: server.url, key: device, attempts: 1 }));
    const stale = { file, size: 9 * MIB, hash: '0'.repeat(40) };
    let failure: unknown;
    await remote.write('moving.bin', stale, null).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(FileMoved);
    expect((await server.api('/vault/file/moving.bin', { key: owner })).status).to.equal(404);
  });
});
