/**
 * Issue 18, attachments over the API, against the real server (a child process, so its RSS is
 * its own): a 200 MiB PUT streamed with and without Content-Length, a 1 MiB range and the
 * whole file back, and a 400 MiB upload over the 200 MiB limit refused, announced (Content-Length)
 * and found while streaming (chunked). Memory is the server's RSS peak above its RSS after a GC
 * just before each request: flat means it does not grow with the file.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  return { ms: summarize(ms), rss_added_mb: summarize(addedMb) };
}

async function download(url: string, key: string, range?: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...(range ? { range } : {}) } });
  let bytes = 0;
  for await (const chunk of res.body!) bytes += (chunk as Uint8Array).byteLength;
  return bytes;
}

export default async function () {
  const data = join(tmpdir(), `quire-bench-attachments-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  const { keys, env } = await benchAccounts(data, ['bench']);
  const key = keys.get('bench')!;
  const server = await startQuire(data, { ...env, QUIRE_LOG_LEVEL: 'warn' });
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
    const refusedAnnounced = await measure(server, () =>
      expect(413, streamUpload(file('over.bin'), key, repeated(chunk, 400), { length: 400 * MIB })),
    );
    const refusedStreamed = await measure(server, () => expect(413, streamUpload(file('over.bin'), key, repeated(chunk, 400))));
    return {
      put_200mib_content_length: sized,
      put_200mib_chunked: chunked,
      get_1mib_range_of_200mib: range,
      get_200mib_whole: whole,
      put_400mib_over_limit_announced: refusedAnnounced,
      put_400mib_over_limit_chunked: refusedStreamed,
    };
  } finally {
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
}
