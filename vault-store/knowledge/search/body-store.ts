import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Where persisted bodies lie in an open snapshot file: utf-8, one after another by id. */
export interface BodyFile {
  handle: FileHandle;
  /** File position of the bodies section. */
  start: number;
  /** Byte offset of each id's body in the section; one more entry than ids. */
  offsets: Uint32Array;
}

/**
 * Page bodies by document id, for snippets, phrase checks and ask. Held in the heap they
 * cost ~40 MB on 10k pages; once persisted they are read back from the snapshot file on
 * demand (one pread of a few KB, from the page cache: microseconds), and only bodies
 * changed since the last snapshot stay in memory.
 */
export class BodyStore {
  private readonly changed = new Map<number, string>();

  constructor(private file?: BodyFile) {}

  get(id: number): string {
    const body = this.changed.get(id);
    if (body !== undefined) return body;
    if (!this.file || id + 1 >= this.file.offsets.length) return '';
    const { offsets } = this.file;
    return this.read(offsets[id], offsets[id + 1] - offsets[id]).toString('utf8');
  }

  set(id: number, body: string): void {
    this.changed.set(id, body);
  }

  delete(id: number): void {
    this.changed.set(id, '');
  }

  /** Every body of ids below `count`, as the next snapshot stores them. */
  section(count: number): { bytes: Uint8Array; offsets: Uint32Array } {
    const old = this.file ? this.read(0, this.file.offsets[this.file.offsets.length - 1]) : undefined;
    const parts: Uint8Array[] = [];
    const offsets = new Uint32Array(count + 1);
    for (let id = 0; id < count; id++) {
      const fresh = this.changed.get(id);
      const stored =
        old && id + 1 < this.file!.offsets.length ? old.subarray(this.file!.offsets[id], this.file!.offsets[id + 1]) : Buffer.alloc(0);
      const part = fresh !== undefined ? Buffer.from(fresh, 'utf8') : stored;
      parts.push(part);
      offsets[id + 1] = offsets[id] + part.byteLength;
    }
    return { bytes: Buffer.concat(parts, offsets[count]), offsets };
  }

  /** Switches to a newly written snapshot holding every body: the in-memory copies go. */
  async attach(file: BodyFile): Promise<void> {
    const previous = this.file;
    this.file = file;
    this.changed.clear();
    await previous?.handle.close();
  }

  /** Closes the file; later reads of persisted bodies throw rather than read another file. */
  async close(): Promise<void> {
    await this.file?.handle.close();
  }

  private read(from: number, length: number): Buffer {
    const { handle, start } = this.file!;
    const buffer = Buffer.allocUnsafe(length);
    for (let done = 0; done < length;) {
      const n = readSync(handle.fd, buffer, done, length - done, start + from + done);
      if (n === 0) throw new Error('index file is shorter than its header says');
      done += n;
    }
    return buffer;
  }
}
