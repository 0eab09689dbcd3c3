import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { Slices } from '../slices.js';
import type { PackedObject } from './pack-file.js';
import { buildPack, packEntry, writePackFiles, type PackEntry } from './pack-writer.js';
import { zlibLevel } from './zlib-level.js';

export type ObjectType = 'blob' | 'tree' | 'commit';

/**
 * Objects written since the last flush, held in memory and readable from here, then written
 * together as one pack (see pack-writer.ts) before a ref moves to them. A batch of commits
 * made 4–5 loose objects a commit, each a file created, renamed and fsynced with its folder:
 * on ext4 each create and rename waits for the journal behind the other fsyncs, and they
 * were a third of the server's time under write load. One pack is two files and one folder.
 * An object given up with its batch (the branch moved, a write failed) goes out with the
 * next pack, unreferenced, as a loose one stayed on disk before.
 */
export class PendingObjects {
  #objects = new Map<string, { type: ObjectType; body: Uint8Array }>();
  /** Being written: still readable here until the pack is in place and known to the reader. */
  #flushing = new Map<string, { type: ObjectType; body: Uint8Array }>();
  #flushed: Promise<unknown> = Promise.resolve();

  /** Hashes `body` as a git object of `type` and keeps it for the next flush; returns its id. */
  add(type: ObjectType, body: Uint8Array): string {
    const oid = createHash('sha1').update(`${type} ${body.byteLength}\0`).update(body).digest('hex');
    this.#objects.set(oid, { type, body });
    return oid;
  }

  /** An object added and not yet in a pack the reader knows. */
  get(oid: string): PackedObject | undefined {
    const held = this.#objects.get(oid) ?? this.#flushing.get(oid);
    return held && { type: held.type, data: Buffer.from(held.body.buffer, held.body.byteOffset, held.body.byteLength) };
  }

  /**
   * Writes every object added so far, except those already in a pack `reader` knows, as one
   * durable pack and tells `reader` of it before they leave memory; returns its path without
   * extension, or undefined when nothing was written. Flushes run one after another: a second
   * call returns once the objects of the first are durable too.
   */
  flush(gitdir: string, reader: PackReader): Promise<string | undefined> {
    const run = this.#flushed.then(async () => {
      if (this.#objects.size === 0) return undefined;
      this.#flushing = this.#objects;
      this.#objects = new Map();
      try {
        const entries: PackEntry[] = [];
        // Turns between objects: a commit of 1,000 pages deflated and packed them in one ~60 ms block.
        const slices = new Slices();
        for (const [oid, { type, body }] of this.#flushing) {
          await slices.pause();
          // Written again (a page back to an earlier text): a pack holding an object twice could not be merged.
          if (!(await reader.inPack(oid)))
            entries.push(packEntry(oid, type, body.byteLength, deflateSync(body, { level: zlibLevel(type, body) })));
        }
        if (entries.length === 0) return undefined;
        const base = await writePackFiles(gitdir, buildPack(entries));
        await reader.packsChanged(base);
        return base;
      } catch (err) {
        // Kept for the next flush: what is being staged may still refer to them.
        for (const [oid, held] of this.#flushing) if (!this.#objects.has(oid)) this.#objects.set(oid, held);
        throw err;
      } finally {
        this.#flushing = new Map();
      }
    });
    this.#flushed = run.catch(() => undefined);
    return run;
  }
}

/** What a flush asks of the object reader. */
export interface PackReader {
  inPack(oid: string): Promise<boolean>;
  packsChanged(added: string): Promise<void>;
}
