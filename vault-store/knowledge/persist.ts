import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { atomicWriteFile } from '../atomic-file.js';

/** Bumped whenever what is persisted changes shape; an older file is simply rebuilt. */
export const FORMAT_VERSION = 1;
const MAGIC = 'quire-knowledge';

export type Sections = Record<string, Uint8Array>;

interface Header {
  version: number;
  commit: string;
  sha256: string;
  sections: { name: string; size: number }[];
}

/**
 * The persisted derived data: one header line (format, the commit it reflects, a SHA-256
 * of everything after it, the section sizes), then the sections' raw bytes. Written
 * atomically; a torn, truncated or edited file fails the checksum and is rebuilt.
 */
export async function writeSnapshot(file: string, commit: string, sections: Sections): Promise<void> {
  const names = Object.keys(sections);
  const hash = createHash('sha256');
  for (const name of names) hash.update(sections[name]);
  const header: Header = { version: FORMAT_VERSION, commit, sha256: hash.digest('hex'), sections: names.map((name) => ({ name, size: sections[name].byteLength })) };
  const head = Buffer.from(`${MAGIC} ${JSON.stringify(header)}\n`);
  await atomicWriteFile(file, Buffer.concat([head, ...names.map((n) => sections[n])]));
}

/** The snapshot at `file`, or undefined when it is missing, corrupted or of another format. */
export async function readSnapshot(file: string): Promise<{ commit: string; sections: Sections } | undefined> {
  const data = await fsp.readFile(file).catch(() => undefined);
  if (!data) return undefined;
  try {
    const newline = data.indexOf(10);
    const line = data.subarray(0, newline).toString('utf8');
    if (newline < 0 || !line.startsWith(`${MAGIC} `)) return undefined;
    const header = JSON.parse(line.slice(MAGIC.length + 1)) as Header;
    if (header.version !== FORMAT_VERSION) return undefined;
    const body = data.subarray(newline + 1);
    if (createHash('sha256').update(body).digest('hex') !== header.sha256) return undefined;
    const sections: Sections = {};
    let at = 0;
    for (const { name, size } of header.sections) {
      sections[name] = body.subarray(at, at + size);
      at += size;
    }
    return at === body.length ? { commit: header.commit, sections } : undefined;
  } catch {
    return undefined;
  }
}

export function jsonSection(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

export function parseSection<T>(bytes: Uint8Array | undefined): T {
  if (!bytes) throw new Error('missing section');
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;
}
