import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { crc32 } from 'node:zlib';

/** How the snapshot's files are written and checksummed: whole chunks, or a stream a MB at a time. */

/** Bytes checksummed between turns of the event loop when a save is written (~1 ms). */
const SUM_SLICE = 1 << 20;
/** writev takes at most IOV_MAX (1024 on Linux) buffers a call. */
export const IOV_MAX = 1024;
/**
 * A section made piece by piece as it is written: each piece is checksummed and written, then
 * dropped, so the whole section is never held (the page metas' JSON is 52 MB at 100k pages).
 */
export type SectionStream = AsyncIterable<Uint8Array>;

/** A written file's size and CRC-32. */
export interface Sum {
  size: number;
  crc: number;
}

export function sumOf(chunks: Uint8Array[]): Sum {
  // Empty chunks skipped: node's crc32 of an empty array over an empty buffer forgets the running value.
  const crc = chunks.reduce((crc, c) => (c.byteLength ? crc32(c, crc) : crc), 0);
  return { size: chunks.reduce((n, c) => n + c.byteLength, 0), crc };
}

/**
 * `sumOf`, giving the event loop a turn every SUM_SLICE bytes: outside the write queue, a
 * save's tens of MB (term tables, postings) summed at once still held every request up.
 */
export async function sumInTurns(chunks: Uint8Array[]): Promise<Sum> {
  let size = 0;
  let crc = 0;
  let sinceTurn = 0;
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.byteLength; at += SUM_SLICE) {
      const part = chunk.subarray(at, at + SUM_SLICE);
      crc = crc32(part, crc);
      size += part.byteLength;
      sinceTurn += part.byteLength;
      if (sinceTurn < SUM_SLICE) continue;
      sinceTurn = 0;
      await nextTurn();
    }
  }
  return { size, crc };
}

/** Creates (or, after a crash, overwrites) `path` with the chunks in order, then fsyncs it. */
export async function writeSynced(path: string, chunks: Uint8Array[]): Promise<void> {
  const handle = await fsp.open(path, 'w');
  try {
    await writeChunks(handle, chunks, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a stream's pieces into a new file at `path` about a MB a call, summing them as they go, then fsyncs it. */
export async function writeStream(path: string, stream: SectionStream): Promise<Sum> {
  const handle = await fsp.open(path, 'w');
  try {
    let sum: Sum = { size: 0, crc: 0 };
    let batch: Uint8Array[] = [];
    let batched = 0;
    const flush = async () => {
      await writeChunks(handle, batch, sum.size);
      // Empty pieces skipped, as in `sumOf`.
      for (const piece of batch) if (piece.byteLength) sum = { size: sum.size + piece.byteLength, crc: crc32(piece, sum.crc) };
      [batch, batched] = [[], 0];
    };
    for await (const piece of stream) {
      batch.push(piece);
      batched += piece.byteLength;
      if (batched >= SUM_SLICE) await flush();
    }
    await flush();
    await handle.sync();
    return sum;
  } finally {
    await handle.close();
  }
}

/**
 * Writes the chunks one after another from `position`, with as few calls as writev allows.
 * Walks the list by index: cutting the rest off after each call copied what was left, and a
 * section of 100k pieces made a save allocate a copy of the list per thousand written.
 */
export async function writeChunks(handle: FileHandle, chunks: Uint8Array[], position: number): Promise<void> {
  // chunks[next] is the first not wholly written, `done` bytes of it written already.
  let next = 0;
  let done = 0;
  for (;;) {
    const batch: Uint8Array[] = [];
    for (let i = next; i < chunks.length && batch.length < IOV_MAX; i++) {
      const chunk = i === next ? chunks[i].subarray(done) : chunks[i];
      if (chunk.byteLength > 0) batch.push(chunk);
    }
    if (batch.length === 0) return;
    const { bytesWritten } = await handle.writev(batch, position);
    position += bytesWritten;
    done += bytesWritten;
    while (next < chunks.length && done >= chunks[next].byteLength) done -= chunks[next++].byteLength;
  }
}

/** The chunks after the first `n` bytes (a writev may write fewer bytes than asked). */
export function dropBytes(chunks: Uint8Array[], n: number): Uint8Array[] {
  let i = 0;
  while (i < chunks.length && n >= chunks[i].byteLength) n -= chunks[i++].byteLength;
  const rest = chunks.slice(i);
  if (n > 0) rest[0] = rest[0].subarray(n);
  return rest;
}

/** fsync by path: the appending file descriptor may belong to a store retired meanwhile. */
export async function syncFile(path: string): Promise<void> {
  const handle = await fsp.open(path, 'r');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
