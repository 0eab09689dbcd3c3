import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { atomicWriteFile } from '../atomic-file.js';

/** Bumped whenever what is persisted changes shape or meaning; an older file is simply rebuilt. */
export const FORMAT_VERSION = 6;
const MAGIC = 'quire-knowledge';

export type Sections = Record<string, Uint8Array>;

/** Where each section starts in the file, for reading parts of it again later. */
export type Positions = Record<string, number>;

/** A verified snapshot, with the open file it came from (the caller closes it). */
export interface Snapshot {
  commit: string;
  sections: Sections;
  positions: Positions;
  handle: FileHandle;
}

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
export async function writeSnapshot(file: string, commit: string, sections: Sections): Promise<Positions> {
  const names = Object.keys(sections);
  const hash = createHash('sha256');
  for (const name of names) hash.update(sections[name]);
  const header: Header = {
    version: FORMAT_VERSION,
    commit,
    sha256: hash.digest('hex'),
    sections: names.map((name) => ({ name, size: sections[name].byteLength })),
  };
  const head = Buffer.from(`${MAGIC} ${JSON.stringify(header)}\n`);
  await atomicWriteFile(file, Buffer.concat([head, ...names.map((n) => sections[n])]));
  return positionsOf(head.length, header);
}

/**
 * The snapshot at `file`, or undefined when it is missing, corrupted or of another format.
 * The file stays open so that what is read from it later is the very file verified here,
 * even after a newer snapshot has replaced it on disk.
 */
export async function readSnapshot(file: string): Promise<Snapshot | undefined> {
  const handle = await fsp.open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  const snapshot = await verify(await handle.readFile()).catch(() => undefined);
  if (!snapshot) await handle.close();
  return snapshot && { ...snapshot, handle };
}

async function verify(data: Buffer): Promise<Omit<Snapshot, 'handle'> | undefined> {
  const newline = data.indexOf(10);
  const line = data.subarray(0, newline).toString('utf8');
  if (newline < 0 || !line.startsWith(`${MAGIC} `)) return undefined;
  const header = JSON.parse(line.slice(MAGIC.length + 1)) as Header;
  if (header.version !== FORMAT_VERSION) return undefined;
  const body = data.subarray(newline + 1);
  if (createHash('sha256').update(body).digest('hex') !== header.sha256) return undefined;
  const positions = positionsOf(newline + 1, header);
  const sections: Sections = {};
  for (const { name, size } of header.sections) sections[name] = data.subarray(positions[name], positions[name] + size);
  const end = header.sections.reduce((sum, s) => sum + s.size, newline + 1);
  return end === data.length ? { commit: header.commit, sections, positions } : undefined;
}

function positionsOf(start: number, header: Header): Positions {
  const positions: Positions = {};
  let at = start;
  for (const { name, size } of header.sections) {
    positions[name] = at;
    at += size;
  }
  return positions;
}

export function jsonSection(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

export function parseSection<T>(bytes: Uint8Array | undefined): T {
  if (!bytes) throw new Error('missing section');
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;
}
