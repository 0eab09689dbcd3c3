import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileMoved } from '../../../scripts/sync/big-files.js';
import { FilesRemote } from '../../../scripts/sync/files-remote.js';
import { HttpClient } from '../../../scripts/sync/http-client.js';
import { cli } from '../../helpers/built-script.js';
import type { TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { syncOnce, syncSuite } from './sync-helpers.js';

const MIB = 1024 * 1024;
/** Well above the client's 8 MiB streaming threshold, below the personal plan's 100 MiB limit. */
const SIZE = 96 * MIB;
/**
 * How far a sync moving SIZE bytes may raise the client's peak memory over one moving small
 * files. An upload reads into two reused buffers: a few MB. A download's socket hands over a
 * fresh buffer per read, spent once written, which V8 collects in its own time: a reader of
 * 32, 96 and 192 MiB answers grew by 33, 37 and 38 MB, so the bound is not the file's. The
 * client that held files whole grew by about twice the file.
 */
const UPLOAD_GROWTH_LIMIT = 40 * MIB;
const DOWNLOAD_GROWTH_LIMIT = 64 * MIB;
const REPORT_PEAK_RSS = join(import.meta.dirname, '../../fixtures/report-peak-rss.mjs');

/** `quire sync DIR --once` as a child process; its peak resident memory in bytes. */
async function syncPeak(server: TestServer, dir: string, key: string): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--import', REPORT_PEAK_RSS, ...cli('sync', dir, '--server', server.url, '--key', key, '--once')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`quire sync exited ${code}: ${stderr}`);
  return Number(/peak_rss_kb (\d+)/.exec(stderr)![1]) * 1024;
}

/** A file's git blob id, read as a stream. */
async function blobId(file: string, size: number): Promise<string> {
  const sha = createHash('sha1').update(`blob ${size}\0`);
  for await (const chunk of createReadStream(file)) sha.update(chunk as Buffer);
  return sha.digest('hex');
}

/** A big file of random bytes, written in pieces so the test itself stays small. */
function writeBig(file: string, size: number): void {
  const piece = randomBytes(MIB);
  writeFileSync(file, '');
  for (let done = 0; done < size; done += MIB) writeFileSync(file, piece.subarray(0, Math.min(MIB, size - done)), { flag: 'a' });
}

describe('quire sync: big files stream through the client', () => {
  let server: TestServer;
  let owner: string;
  let device: string;
  let dir: string;
  let scratch: { path: string; cleanup: () => void };
  syncSuite((s) => ([server, owner, device, dir] = [s.server, s.owner, s.device, s.dirs[0]]), { keys: true });
  beforeEach(() => (scratch = tempDir('quire-big-')));
  afterEach(() => scratch.cleanup());

  it('downloads and uploads a 96 MiB attachment exactly, the client growing far less than the file (Linux)', async function () {
    this.timeout(120_000);
    if (process.platform !== 'linux') {
      console.warn('    (skipped: the peak memory is read from /proc/self/status)');
      this.skip();
    }
    // What any transfer costs whatever the size (the code that moves files):
    // a run that moves a small file each way.
    await syncPeak(server, dir, device);
    await server.api('/vault/file/small.bin', { method: 'PUT', key: owner, body: randomBytes(100_000) });
    writeFileSync(join(dir, 'small-local.bin'), randomBytes(100_000));
    const small = await syncPeak(server, dir, device);

    // Down: the server's file arrives whole and exact.
    const source = join(scratch.path, 'video.bin');
    writeBig(source, SIZE);
    const res = await server.api('/vault/file/media/video.bin', {
      method: 'PUT',
      key: owner,
      body: createReadStream(source) as unknown as BodyInit,
      headers: { 'content-length': String(SIZE) },
      duplex: 'half',
    } as RequestInit);
    expect(res.status, await res.text()).to.equal(201);
    const down = await syncPeak(server, dir, device);
    expect(await blobId(join(dir, 'media/video.bin'), SIZE)).to.equal(await blobId(source, SIZE));

    // Up: a big local file reaches the server whole and exact.
    mkdirSync(join(dir, 'media'), { recursive: true });
    writeBig(join(dir, 'media/film.bin'), SIZE);
    const up = await syncPeak(server, dir, device);
    const head = await server.api('/vault/file/media/film.bin', { method: 'HEAD', key: owner });
    expect(head.headers.get('etag')).to.equal(`"${await blobId(join(dir, 'media/film.bin'), SIZE)}"`);

    expect(down - small, `download peak ${down} vs ${small} moving small files`).to.be.below(DOWNLOAD_GROWTH_LIMIT);
    expect(up - small, `upload peak ${up} vs ${small} moving small files`).to.be.below(UPLOAD_GROWTH_LIMIT);
  });

  it('keeps both versions of a big file changed on both sides: the server one at the path, ours as a conflict copy', async () => {
    const size = 9 * MIB;
    const first = join(scratch.path, 'first.bin');
    writeBig(first, size);
    const put = async (file: string) => {
      const res = await server.api('/vault/file/big.bin', { method: 'PUT', key: owner, body: readFileSync(file) });
      expect(res.status, await res.text()).to.be.below(300);
    };
    await put(first);
    await syncOnce(server, dir, device);
    const theirs = join(scratch.path, 'theirs.bin');
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
    const file = join(scratch.path, 'moving.bin');
    writeBig(file, 9 * MIB);
    const remote = new FilesRemote(new HttpClient({ server: server.url, key: device, attempts: 1 }));
    const stale = { file, size: 9 * MIB, hash: '0'.repeat(40) };
    let failure: unknown;
    await remote.write('moving.bin', stale, null).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(FileMoved);
    expect((await server.api('/vault/file/moving.bin', { key: owner })).status).to.equal(404);
  });
});
