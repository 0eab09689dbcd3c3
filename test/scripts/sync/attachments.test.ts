import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestServer } from '../../helpers/test-server.js';
import { syncOnce, syncSuite } from './sync-helpers.js';

const AT = new Date(2026, 10, 26, 15, 3, 12);
const now = () => AT;

/** Bytes that are no UTF-8 text (a PNG's signature first), so nothing could carry them as a page. */
function binary(size: number): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]), randomBytes(size)]);
}

describe('quire sync: attachments', () => {
  let server: TestServer;
  let owner: string;
  let device: string;
  let dir: string;

  const putFile = async (path: string, bytes: Buffer) => {
    const res = await server.api(`/vault/file/${path}`, { method: 'PUT', key: owner, body: bytes });
    expect(res.status, await res.text()).to.be.below(300);
  };
  const getFile = async (path: string): Promise<Buffer | undefined> => {
    const res = await server.api(`/vault/file/${encodeURI(path)}`, { key: owner });
    return res.status === 404 ? undefined : Buffer.from(await res.arrayBuffer());
  };
  const local = (path: string) => readFileSync(join(dir, path));
  const putLocal = (path: string, bytes: Buffer) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  };

  syncSuite((s) => ([server, owner, device, dir] = [s.server, s.owner, s.device, s.dirs[0]]), { keys: true });

  it('carries binary files both ways, byte for byte, and their deletions', async () => {
    const image = binary(300_000);
    await putFile('img/diagram.png', image);
    await syncOnce(server, dir, device);
    expect(local('img/diagram.png').equals(image)).to.equal(true);

    const pdf = binary(50_000);
    putLocal('docs/manual.pdf', pdf);
    const result = await syncOnce(server, dir, device);
    expect(result.uploaded).to.equal(1);
    expect((await getFile('docs/manual.pdf'))!.equals(pdf)).to.equal(true);

    rmSync(join(dir, 'img/diagram.png'));
    await syncOnce(server, dir, device);
    expect(await getFile('img/diagram.png')).to.equal(undefined);
    // No merge base is kept for attachments: they are never merged.
    expect(readdirCount(join(dir, '.quire-sync/base'))).to.equal(0);
  });

  it('keeps both versions of an attachment edited on both sides: the server one at the path, the local one as a conflict copy', async () => {
    await putFile('img/photo.jpg', binary(20_000));
    await syncOnce(server, dir, device);
    const mine = binary(20_000);
    const theirs = binary(20_000);
    putLocal('img/photo.jpg', mine);
    await putFile('img/photo.jpg', theirs);

    const result = await syncOnce(server, dir, device, { now });
    const copy = 'img/photo (conflict laptop 2026-11-26 1503).jpg';
    expect(result.conflicts).to.deep.equal([['img/photo.jpg', copy]]);
    expect(local('img/photo.jpg').equals(theirs)).to.equal(true);
    expect(local(copy).equals(mine)).to.equal(true);
    expect((await getFile(copy))!.equals(mine)).to.equal(true);
    expect((await getFile('img/photo.jpg'))!.equals(theirs)).to.equal(true);

    const again = await syncOnce(server, dir, device, { now });
    expect(again.conflicts).to.deep.equal([]);
    expect(again.uploaded + again.downloaded).to.equal(0);
  });

  it('carries a page that is not UTF-8 as the bytes it is', async () => {
    const latin1 = Buffer.from('# Caf\xe9\n', 'latin1');
    await putFile('latin.md', latin1);
    await syncOnce(server, dir, device);
    expect(local('latin.md').equals(latin1)).to.equal(true);
  });
});

/** Files under a folder (0 when it does not exist). */
function readdirCount(folder: string): number {
  if (!existsSync(folder)) return 0;
  return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
}
