import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../../helpers/built-script.js';
import type { TestServer } from '../../helpers/test-server.js';
import { bigFileSuite, blobId, MIB, writeBig, type BigFileSuite } from './big-file-helpers.js';

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

describe('quire sync: a 96 MiB file streams through the client (soak)', () => {
  let big: BigFileSuite;
  bigFileSuite((suite) => (big = suite));

  it('downloads and uploads a 96 MiB attachment exactly, the client growing far less than the file (Linux)', async function () {
    const { server, owner, device, dir, scratch } = big;
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
    const source = join(scratch, 'video.bin');
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
});
