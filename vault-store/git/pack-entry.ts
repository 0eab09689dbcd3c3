import { constants, inflateSync } from 'node:zlib';

/* Parsing one entry of a packfile (git's pack-format.txt): what `PackFile` reads before inflating anything. */

/** Bytes read to parse an entry's header: its type and size, an OFS_DELTA's base offset or a REF_DELTA's base id, and the start of a delta. */
export const HEADER_PROBE = 512;

/** An entry's header at the start of `raw`: type code, size, and where its data (or base reference) begins. */
export function entryHeader(raw: Buffer): { code: number; size: number; at: number } {
  let at = 0;
  let byte = raw[at++];
  const code = (byte >> 4) & 7;
  let size = byte & 15;
  let scale = 16;
  while (byte & 0x80) {
    byte = raw[at++];
    size += (byte & 0x7f) * scale;
    scale *= 128;
  }
  return { code, size, at };
}

/** An OFS_DELTA's distance back to its base, at `at`; and where the delta begins. */
export function baseDistance(raw: Buffer, at: number): { back: number; at: number } {
  let byte = raw[at++];
  let back = byte & 0x7f;
  while (byte & 0x80) {
    byte = raw[at++];
    back = (back + 1) * 128 + (byte & 0x7f);
  }
  return { back, at };
}

/**
 * The size of what a delta produces: its second varint, inflating only the delta's first
 * bytes; undefined when `deflated` is too short a prefix to hold it (a long block header).
 */
export function deltaResultSize(deflated: Buffer): number | undefined {
  const head = inflateSync(deflated, { finishFlush: constants.Z_SYNC_FLUSH });
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      if (at >= head.length) return undefined;
      byte = head[at++];
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return value;
  };
  return varint() === undefined ? undefined : varint();
}
