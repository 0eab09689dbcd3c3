import { mkdirSync, promises as fsp, readdirSync, readFileSync, statSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { atomicWriteFile } from '../atomic-file.js';
import { QuireError } from '../errors.js';
import { sumInTurns, sumOf, syncFile, writeStream, writeSynced, type SectionStream, type Sum } from './section-write.js';

export type { SectionStream };

/** Bumped whenever what is persisted changes shape or meaning; an older folder is simply rebuilt. */
export const FORMAT_VERSION = 13;
const MANIFEST = 'manifest';
const MAGIC = 'quire-knowledge';
/**
 * Sections up to this size are read at open synchronously, larger ones through the thread
 * pool. Each asynchronous read is four round trips (open, stat, read, close), and on a busy
 * server each waits for the request running then: reopening an evicted 2k-page vault took 0.3 s
 * of waiting behind 5 ms requests for 1 ms of reading (its sections are 3 MB, page-cached).
 */
const SYNC_READ_BYTES = 8 << 20;

/** A section's bytes: one array, or chunks written one after another (never concatenated). */
export type SectionBytes = Uint8Array | Uint8Array[];

/**
 * A section left on disk by a warm open (what the first search does not need: page metas,
 * fields, tasks), read when first asked for and checked then against the size and CRC the
 * manifest gives. Saved again unread, it keeps its file. Once read, its bytes are kept: the
 * save that follows may replace the file, and a holder may read them again for the next
 * (tasks keep the page changes beside the saved section and merge them at every save).
 */
export class SavedSection {
  private bytes: Uint8Array | undefined;

  constructor(
    private readonly path: string,
    readonly size: number,
    readonly crc: number,
    private readonly onBad: () => void,
  ) {}

  /** The same file, unread: a handle to keep once the bytes are parsed, so they are not kept with it. */
  unread(): SavedSection {
    return new SavedSection(this.path, this.size, this.crc, this.onBad);
  }

  /** The bytes as saved; a file that is not (damaged since the open) starts a rebuild and answers VAULT_BUSY, never its bytes. */
  read(): Uint8Array {
    if (this.bytes) return this.bytes;
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(this.path);
    } catch {
      // Missing or unreadable: as bad as a wrong checksum.
    }
    if (bytes && bytes.byteLength === this.size && crc32(bytes) === this.crc) return (this.bytes = bytes);
    this.onBad();
    throw new QuireError('VAULT_BUSY', 'The saved index failed its check and is being rebuilt; retry shortly', { retry_after: 5 });
  }
}

/**
 * Bytes, or a function that makes them (or a promise of them, or a stream) when the section
 * is written, outside the write queue: only for data that no longer changes once taken (page
 * metas are replaced, never edited), so the queue does not wait for its serialisation; or a
 * section still unread.
 */
export type SectionValue = SectionBytes | (() => SectionBytes | Promise<SectionBytes> | SectionStream) | SavedSection;
export type Sections = Record<string, SectionValue>;
/**
 * Whether `changed` pages may be saved as changes beside a section saved whole for `pages`
 * (at least 256, at most an eighth of the pages): past that the section is saved whole again,
 * so the changes, and what the whole file holds dead, stay a small share of it.
 */
export function changesFit(changed: number, pages: number): boolean {
  return changed <= Math.max(256, pages / 8);
}
/** What a section's value makes when it is written: its bytes, or a stream of them. */
export async function madeSection(value: SectionValue): Promise<SectionBytes | SectionStream> {
  return value instanceof SavedSection ? value.read() : typeof value === 'function' ? await value() : value;
}
/** Run once the save that took some sections is written, with the store's handles of what it wrote. */
export type Written = (saved: (name: string) => SavedSection | undefined) => void;
/** Sections as read back: each one file's bytes, in a buffer of its own. */
export type LoadedSections = Record<string, Uint8Array>;

/** A file that only grows (the page bodies): the snapshot holds its first `size` bytes. */
export interface AppendFile {
  file: string;
  size: number;
}

interface Entry {
  file: string;
  size: number;
  crc: number;
}

interface Manifest {
  version: number;
  generation: number;
  commit: string;
  sections: Record<string, Entry>;
  append?: AppendFile;
}

export interface Snapshot {
  commit: string;
  sections: LoadedSections;
  /** Any section as the manifest names it, unread (see SnapshotStore.saved): how those `open` left on disk are read. */
  saved: (name: string) => SavedSection | undefined;
  append?: AppendFile;
}

export interface OpenOptions {
  /** Sections not read at open but when first asked for (see SavedSection). */
  later?: readonly string[];
}

/** What a save writes, its bytes checksummed when it was taken (see `prepare`). */
export interface PreparedSnapshot {
  commit: string;
  sections: Sections;
  sums: Record<string, Sum>;
  append?: AppendFile;
}

/**
 * The persisted derived data of one vault: a folder with one file per section and a small
 * manifest naming them (format, generation, the commit they reflect, each section's size
 * and CRC-32, and how much of the append file counts). A save writes the sections that
 * changed into files of a new generation, then replaces the manifest atomically, then
 * deletes the files only the old manifest named. A save cut short (kill -9) leaves the old
 * manifest and every file it names intact; an open checks each section's CRC and sweeps
 * whatever the manifest does not name.
 */
export class SnapshotStore {
  /** Called when a section left on disk fails its check when read (the owner rebuilds). */
  onBadSection: () => void = () => undefined;

  private constructor(
    readonly dir: string,
    private current: Manifest | undefined,
    /** Of the last manifest written; files of later ones never collide with the ones it names. */
    private generation = current?.generation ?? 0,
  ) {}

  /**
   * The folder's store and its snapshot, or no snapshot when it is missing, torn or of
   * another format. Every section is checked (size and CRC) before it is used: the ones
   * read now here, the `later` ones (whose files must exist at their size now) when read.
   */
  static async open(dir: string, options: OpenOptions = {}): Promise<{ store: SnapshotStore; snapshot?: Snapshot }> {
    mkdirSync(dir, { recursive: true });
    const manifest = readManifest(dir);
    const later = new Set(options.later);
    const sections = manifest && (await readSections(dir, manifest, later));
    const current = sections ? manifest : undefined;
    await sweep(dir, current);
    const store = new SnapshotStore(dir, current);
    if (!current || !sections) return { store };
    const named = (name: string) => store.saved(name);
    return { store, snapshot: { commit: current.commit, sections, saved: named, append: current.append } };
  }

  /**
   * A store for writing one whole snapshot past the folder's current one, for the build: no
   * file is reused (a damaged one may hold the bytes its CRC promises no more) or removed
   * (a state may still read them); the next `open` sweeps what its manifest no longer names.
   */
  static async past(dir: string): Promise<SnapshotStore> {
    return new SnapshotStore(dir, undefined, readManifest(dir)?.generation);
  }

  /** The section `name` as the last manifest written or opened names it, unread; none when it names none. */
  saved(name: string): SavedSection | undefined {
    const entry = this.current?.sections[name];
    return entry && new SavedSection(join(this.dir, entry.file), entry.size, entry.crc, () => this.onBadSection());
  }

  /**
   * Checksums the sections now, where the caller holds them consistent (inside the write
   * queue): if their bytes change before `write` runs, what lands on disk fails its CRC at
   * the next open and is rebuilt rather than served.
   */
  prepare(commit: string, sections: Sections, append?: AppendFile): PreparedSnapshot {
    const sums: Record<string, Sum> = {};
    for (const [name, value] of Object.entries(sections)) {
      if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad section name ${name}`);
      if (value instanceof SavedSection) sums[name] = { size: value.size, crc: value.crc };
      else if (typeof value !== 'function') sums[name] = sumOf(chunksOf(value));
    }
    return { commit, sections, sums, append };
  }

  /**
   * Writes a prepared snapshot; one at a time (the caller serialises saves). `between` runs
   * after each section is written, when its bytes are garbage (the builder collects there).
   */
  async write(snapshot: PreparedSnapshot, between?: () => void): Promise<void> {
    const previous = this.current;
    const generation = this.generation + 1;
    const sections: Record<string, Entry> = {};
    for (const [name, value] of Object.entries(snapshot.sections)) {
      const old = previous?.sections[name];
      const same = (sum: Sum) => old !== undefined && old.size === sum.size && old.crc === sum.crc;
      // An unread section the manifest names as it is keeps its file, never read.
      if (value instanceof SavedSection && same(value)) {
        sections[name] = old!;
        continue;
      }
      const made = await madeSection(value);
      const file = `${name}-${generation}.sec`;
      if (isStream(made)) {
        // Its sum is known only once it is written: a stream that made the old bytes again drops its file.
        const sum = await writeStream(join(this.dir, file), made);
        sections[name] = same(sum) ? old! : { file, ...sum };
        if (same(sum)) await fsp.rm(join(this.dir, file), { force: true });
      } else {
        const chunks = chunksOf(made);
        const sum = snapshot.sums[name] ?? (await sumInTurns(chunks));
        sections[name] = same(sum) ? old! : { file, ...sum };
        if (!same(sum)) await writeSynced(join(this.dir, file), chunks);
      }
      between?.();
    }
    if (snapshot.append) await syncFile(join(this.dir, snapshot.append.file));
    const manifest: Manifest = { version: FORMAT_VERSION, generation, commit: snapshot.commit, sections, append: snapshot.append };
    const json = JSON.stringify(manifest);
    await atomicWriteFile(join(this.dir, MANIFEST), `${MAGIC} ${crc32(json)} ${json}`);
    [this.current, this.generation] = [manifest, generation];
    const kept = namedFiles(manifest);
    for (const file of previous ? namedFiles(previous) : []) if (!kept.has(file)) await fsp.rm(join(this.dir, file), { force: true });
  }
}

/** File names a manifest may hold: plain names in the folder, never a path out of it. */
const FILE_NAME = /^[a-z0-9-]+\.[a-z]+$/;

function readManifest(dir: string): Manifest | undefined {
  const text = readOrNothing(join(dir, MANIFEST))?.toString('utf8') ?? '';
  const match = /^(\S+) (\d+) (.*)$/s.exec(text);
  if (!match || match[1] !== MAGIC || Number(match[2]) !== crc32(match[3])) return undefined;
  try {
    const manifest = JSON.parse(match[3]) as Manifest;
    if (manifest.version !== FORMAT_VERSION || ![...namedFiles(manifest)].every((f) => FILE_NAME.test(f))) return undefined;
    return manifest;
  } catch {
    return undefined;
  }
}

async function readSections(dir: string, manifest: Manifest, later: ReadonlySet<string>): Promise<LoadedSections | undefined> {
  const sections: LoadedSections = {};
  for (const [name, { file, size, crc }] of Object.entries(manifest.sections)) {
    if (later.has(name)) {
      if (sizeOf(join(dir, file)) !== size) return undefined;
      continue;
    }
    const path = join(dir, file);
    const bytes = size <= SYNC_READ_BYTES ? readOrNothing(path) : await fsp.readFile(path).catch(() => undefined);
    if (!bytes || bytes.byteLength !== size || crc32(bytes) !== crc) return undefined;
    sections[name] = bytes;
  }
  if (manifest.append && (sizeOf(join(dir, manifest.append.file)) ?? -1) < manifest.append.size) return undefined;
  return sections;
}

function readOrNothing(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/** Removes every file the manifest does not name: leftovers of a save or compaction cut short. */
async function sweep(dir: string, manifest: Manifest | undefined): Promise<void> {
  const kept = manifest ? namedFiles(manifest) : new Set<string>();
  if (manifest) kept.add(MANIFEST);
  for (const name of readdirSync(dir)) if (!kept.has(name)) await fsp.rm(join(dir, name), { force: true, recursive: true });
}

function namedFiles(manifest: Manifest): Set<string> {
  const files = new Set(Object.values(manifest.sections).map((e) => e.file));
  if (manifest.append) files.add(manifest.append.file);
  return files;
}

export function chunksOf(value: SectionBytes): Uint8Array[] {
  return Array.isArray(value) ? value : [value];
}

export function isStream(value: SectionBytes | SectionStream): value is SectionStream {
  return Symbol.asyncIterator in value;
}

export function jsonSection(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

/** Items per chunk of a JSON section (see `jsonArrayChunks`). */
const CHUNK_ITEMS = 128;

/**
 * A JSON array as a stream of chunks of `per` items: never one string of the whole array,
 * nor all the chunks at once. The event loop gets a turn between chunks: a save serialises
 * 10k page metas outside the write queue, and at once that held every request up for 30–190 ms.
 * A chunk's string is kept small enough for V8's young generation (~65 KB of page metas):
 * 1,024 metas a chunk were ~0.5 MB strings in the old one, 52 MB of them per save at 100k pages,
 * there until its next full collection.
 */
export function jsonArrayChunks(items: readonly unknown[], per = CHUNK_ITEMS): SectionStream {
  return jsonChunks(items.length, (from, to) => items.slice(from, to), per);
}

/**
 * A map's entries as a JSON array of `[key, value]` pairs. Keys and values are copied now
 * (two flat lists, where the caller holds the map still) and paired a chunk at a time as the
 * section is written: a pair per entry made at once lived through the save, 13 MB of old
 * generation garbage per save of 100k pages' fields.
 */
export function jsonEntries(map: ReadonlyMap<string, unknown>): () => SectionStream {
  const keys = [...map.keys()];
  const values = [...map.values()];
  return () => jsonChunks(keys.length, (from, to) => keys.slice(from, to).map((key, i) => [key, values[from + i]]), CHUNK_ITEMS);
}

/** `count` items, taken `per` at a time by `slice`, as one JSON array (see `jsonArrayChunks`). */
async function* jsonChunks(count: number, slice: (from: number, to: number) => unknown[], per: number): SectionStream {
  for (let i = 0; i < count; i += per) {
    if (i > 0) await nextTurn();
    const bytes = Buffer.from(JSON.stringify(slice(i, i + per)));
    // Each chunk is an array of its own: its closing bracket dropped, and after the first its opening one made a comma.
    if (i > 0) bytes[0] = 0x2c;
    yield bytes.subarray(0, bytes.length - 1);
  }
  yield Buffer.from(count === 0 ? '[]' : ']');
}

export function parseSection<T>(bytes: Uint8Array | undefined): T {
  if (!bytes) throw new Error('missing section');
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;
}
