/**
 * Issue 18, attachments over the API, against the real server (a child process, so its RSS is
 * its own): a 200 MiB PUT streamed with and without Content-Length, a 200 MiB PUT replacing
 * one (its working file hashed before the commit), a 200 MiB file dropped into the folder
 * (the watcher commits it), a 1 MiB range and the whole file back, loose and from a pack, and
 * a 400 MiB upload over the 200 MiB limit refused, announced (Content-Length) and found while
 * streaming (chunked). Memory is the server's RSS peak above its RSS after a GC just before
 * each request: flat means it does not grow with the file.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { repeated, streamUpload } from '../../../test/helpers/upload.js';
import { benchAccounts } from '../bench-accounts.js';
import { round, summarize } from '../fixture.js';
import { resetPeak, rssAfterGc, rssSampler, startQuire, type ServerProcess } from '../server-process.js';

const MIB = 1024 * 1024;
const ROUNDS = 3;

/** Runs `task` once per round, each after a GC; its time and the RSS it added at its peak, in MB. */
async function measure(server: ServerProcess, task: (round: number) => Promise<void>) {
  const ms: number[] = [];
  const addedMb: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const base = await rssAfterGc(server);
    resetPeak(server.pid);
    const sampler = rssSampler(server.pid, 20);
    const started = performance.now();
    await task(r);
    ms.push(round(performance.now() - started, 0));
    addedMb.push(round(sampler.stop() - base, 1));
  }
  const result = { ms: summarize(ms), rss_added_mb: summarize(addedMb) };
  // As each case ends: a case that fails later leaves the others' figures.
  console.error(JSON.stringify(result));
  return result;
}

async function download(url: string, key: string, range?: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...(range ? { range } : {}) } });
  let bytes = 0;
  for await (const chunk of res.body!) bytes += (chunk as Uint8Array).byteLength;
  return bytes;
}

/** Waits until the watcher has committed `path`: the API lists it. */
async function committed(url: string, key: string, path: string): Promise<void> {
  const folder = path.slice(0, path.lastIndexOf('/') + 1);
  for (;;) {
    const res = await fetch(`${url}/vault/files?prefix=${folder}&limit=1000`, { headers: { authorization: `Bearer ${key}` } });
    const { files } = (await res.json()) as { files: { path: string }[] };
    if (files.some((f) => f.path === path)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Moves the blob at `path` into a pack of its own and drops its loose object, as `git gc` would. */
function packBlobOf(dir: string, path: string): void {
  const oid = execFileSync('git', ['rev-parse', `HEAD:${path}`], { cwd: dir, encoding: 'utf8' }).trim();
  execFileSync('git', ['pack-objects', '-q', '.git/objects/pack/pack'], { cwd: dir, input: `${oid}\n` });
  execFileSync('git', ['prune-packed'], { cwd: dir });
}

export default async function () {
  const data = join(tmpdir(), `quire-bench-attachments-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  const { keys, env } = await benchAccounts(data, ['bench']);
  const key = keys.get('bench')!;
  // Watching, as a server does by default: the folder-drop case needs it, and it hears every upload land.
  const server = await startQuire(data, { ...env, QUIRE_LOG_LEVEL: 'warn', QUIRE_WATCH: 'true' });
  const chunk = randomBytes(MIB);
  const file = (name: string) => `${server.url}/vault/file/bench/${name}`;
  const expect = async (status: number, reply: Promise<{ status: number; body: unknown }>) => {
    const got = await reply;
    if (got.status !== status) throw new Error(`expected ${status}, got ${got.status} ${JSON.stringify(got.body)}`);
  };
  try {
    const sized = await measure(server, (r) =>
      expect(201, streamUpload(file(`sized-${r}.bin`), key, repeated(chunk, 200), { length: 200 * MIB })),
    );
    const chunked = await measure(server, (r) => expect(201, streamUpload(file(`chunked-${r}.bin`), key, repeated(chunk, 200))));
    const range = await measure(server, async () => void (await download(file('sized-0.bin'), key, `bytes=${100 * MIB}-${101 * MIB - 1}`)));
    const whole = await measure(server, async () => void (await download(file('sized-0.bin'), key)));
    // New bytes each round, so each replace is a commit.
    const replaced = await measure(server, () =>
      expect(200, streamUpload(file('sized-0.bin'), key, repeated(randomBytes(MIB), 200), { length: 200 * MIB })),
    );
    const dropped = await measure(server, async (r) => {
      await pipeline(repeated(randomBytes(MIB), 200), createWriteStream(join(vaultDir(data, 'bench'), `bench/dropped-${r}.bin`)));
      await committed(server.url, key, `bench/dropped-${r}.bin`);
    });
    packBlobOf(vaultDir(data, 'bench'), 'bench/chunked-0.bin');
    const packedRange = await measure(
      server,
      async () => void (await download(file('chunked-0.bin'), key, `bytes=${100 * MIB}-${101 * MIB - 1}`)),
    );
    const packedWhole = await measure(server, async () => void (await download(file('chunked-0.bin'), key)));
    const refusedAnnounced = await measure(server, () =>
      expect(413, streamUpload(file('over.bin'), key, repeated(chunk, 400), { length: 400 * MIB })),
    );
    const refusedStreamed = await measure(server, () => expect(413, streamUpload(file('over.bin'), key, repeated(chunk, 400))));
    return {
      put_200mib_content_length: sized,
      put_200mib_chunked: chunked,
      get_1mib_range_of_200mib: range,
      get_200mib_whole: whole,
      put_200mib_replacing_200mib: replaced,
      folder_drop_200mib_committed: dropped,
      get_1mib_range_of_200mib_packed: packedRange,
      get_200mib_whole_packed: packedWhole,
      put_400mib_over_limit_announced: refusedAnnounced,
      put_400mib_over_limit_chunked: refusedStreamed,
    };
  } finally {
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
}
