import { promises as fsp } from 'node:fs';
import { atomicWriteFile } from '../atomic-file.js';
import { QuireError } from '../errors.js';
import { silentLog, type Log } from '../log.js';
import type { SearchIndex } from './search/search-index.js';
import type { SimilarHit, SimilarInput } from './similar.js';

/** Texts → one vector each, in order (an embeddings model behind whatever transport). */
export type Embed = (texts: string[]) => Promise<Float32Array[]>;

/** Pages per embeddings request, and how much of a page is sent (models cap their input). */
const BATCH = 64;
const MAX_CHARS = 8000;

/**
 * Page vectors from an embeddings model, for similarity by meaning rather than by shared
 * words. Vectors are kept by blob hash (a rename or a revert costs no request), normalised
 * to unit length (cosine is then a dot product), and persisted with the model that made
 * them: a different model starts over. Pages without a vector yet are filled in by
 * `refresh`, in batches, one run at a time; until then they are left out of results, and
 * `coverage` says how many are pending.
 */
export class PageEmbeddings {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** The last refresh's failure, until one succeeds. */
  lastError: string | undefined;

  private constructor(
    private readonly file: string,
    private readonly model: string,
    private readonly embed: Embed,
    private readonly index: () => SearchIndex,
    private readonly vectors: Map<string, Float32Array>,
    private readonly log: Log,
  ) {}

  static async open(file: string, model: string, embed: Embed, index: () => SearchIndex, log: Log = silentLog): Promise<PageEmbeddings> {
    const raw = await fsp.readFile(file).catch(() => undefined);
    return new PageEmbeddings(file, model, embed, index, (raw && decode(raw, model)) ?? new Map(), log);
  }

  /** Counts only pages `visible` accepts: a caller never learns how many pages it cannot read. */
  coverage(visible?: (path: string) => boolean): { embedded: number; pending: number } {
    let embedded = 0;
    let pending = 0;
    for (const doc of this.index().docs) {
      if (!doc || (visible && !visible(doc.path))) continue;
      if (this.vectors.has(doc.hash)) embedded++;
      else pending++;
    }
    return { embedded, pending };
  }

  /**
   * Embeds every page that lacks a vector, then persists. Never rejects: a failure is
   * kept in `lastError` (what was embedded before it is kept). A call during a run
   * queues one more run, for pages that changed meanwhile.
   */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.fill();
          this.lastError = undefined;
        } catch (err) {
          // Logged when the failure starts or changes, not again on every write while the model is down.
          if ((err as Error).message !== this.lastError) this.log.warn({ err: (err as Error).message }, 'embedding pages failed');
          this.lastError = (err as Error).message;
        }
      } while (this.again && !this.lastError && !this.closed);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops after the batch in flight, which is still kept and persisted. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  /** Pages nearest in meaning to a page (its vector, made now if missing) or to a text. */
  async similar(input: SimilarInput, limit: number, visible?: (path: string) => boolean): Promise<SimilarHit[]> {
    const index = this.index();
    const source = 'path' in input ? index.get(input.path) : undefined;
    if ('path' in input && !source) throw new QuireError('NOT_FOUND', `No page at ${input.path}`, { path: input.path });
    let query = source && this.vectors.get(source.hash);
    if (!query) [query] = (await this.embed([source ? pageText(index, source) : (input as { text: string }).text])).map(unit);
    if (source) this.vectors.set(source.hash, query);
    const hits: SimilarHit[] = [];
    for (const doc of index.docs) {
      const vector = doc && doc !== source && this.vectors.get(doc.hash);
      if (!vector || (visible && !visible(doc.path))) continue;
      hits.push({ path: doc.path, title: doc.title, hash: doc.hash, score: Math.round(dot(query, vector) * 1000) / 1000 });
    }
    return hits.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
  }

  private async fill(): Promise<void> {
    let embedded = 0;
    try {
      for (;;) {
        // Chosen and read afresh for each batch, from the index as it is now: pages change,
        // and a rebuild replaces the index, while a request is out.
        const index = this.index();
        const batch = index.docs.filter((doc) => doc && !this.vectors.has(doc.hash)).slice(0, BATCH) as NonNullable<
          SearchIndex['docs'][number]
        >[];
        if (batch.length === 0 || this.closed) return;
        const vectors = await this.embed(batch.map((doc) => pageText(index, doc)));
        if (vectors.length !== batch.length) throw new Error(`asked for ${batch.length} embeddings, got ${vectors.length}`);
        batch.forEach((doc, j) => this.vectors.set(doc.hash, unit(vectors[j])));
        embedded += batch.length;
      }
    } finally {
      if (embedded) await this.persist();
    }
  }

  /** Keeps, in memory and on disk, only the vectors of pages still in the vault. */
  private async persist(): Promise<void> {
    const live = new Set(this.index().docs.map((doc) => doc?.hash));
    for (const hash of this.vectors.keys()) if (!live.has(hash)) this.vectors.delete(hash);
    await atomicWriteFile(this.file, encode(this.vectors, this.model));
  }
}

/** What is embedded of a page: its body, after its title unless the body opens with a heading. */
function pageText(index: SearchIndex, doc: NonNullable<SearchIndex['docs'][number]>): string {
  const body = index.body(doc);
  return (/^\s*#\s/.test(body) ? body : `${doc.title}\n\n${body}`).slice(0, MAX_CHARS);
}

function unit(vector: Float32Array): Float32Array {
  const norm = Math.sqrt(dot(vector, vector)) || 1;
  return vector.map((x) => x / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length && i < b.length; i++) sum += a[i] * b[i];
  return sum;
}

/** File: a 4-byte header length, the JSON header (model, dimensions, hashes), then the vectors. */
function encode(vectors: Map<string, Float32Array>, model: string): Buffer {
  const dims = vectors.values().next().value?.length ?? 0;
  const header = Buffer.from(JSON.stringify({ model, dims, hashes: [...vectors.keys()] }));
  const body = new Float32Array(vectors.size * dims);
  [...vectors.values()].forEach((v, i) => body.set(v, i * dims));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return Buffer.concat([length, header, Buffer.from(body.buffer)]);
}

/** The vectors, or undefined for another model's file or one that does not add up (re-embedded). */
function decode(raw: Buffer, model: string): Map<string, Float32Array> | undefined {
  try {
    const length = raw.readUInt32LE(0);
    const header = JSON.parse(raw.subarray(4, 4 + length).toString('utf8')) as { model: string; dims: number; hashes: string[] };
    const body = raw.subarray(4 + length);
    if (header.model !== model || body.length !== header.hashes.length * header.dims * 4) return undefined;
    const floats = new Float32Array(new Uint8Array(body).buffer);
    return new Map(header.hashes.map((hash, i) => [hash, floats.subarray(i * header.dims, (i + 1) * header.dims)]));
  } catch {
    return undefined;
  }
}
