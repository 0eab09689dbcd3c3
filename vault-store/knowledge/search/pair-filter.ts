import { isAscii, scanTerms, tokenize } from './tokenize.js';

/** Filter bits per neighbouring pair of a body, and bits set per pair: ~1.2% false positives. */
const BITS_PER_PAIR = 12;
const PROBES = 3;
/** Filters live in chunks of this many bytes; a bigger one gets a chunk of its own. */
const CHUNK = 1 << 20;
/** Dead bytes (filters of pages changed since) tolerated past the live ones before all are dropped. */
const SLACK = 4 << 20;

/** One phrase as a filter checks it: the hash of each pair of neighbouring terms. */
export type PhrasePairs = Uint32Array;

/**
 * Per page, a Bloom filter of the pairs of neighbouring terms of its title and of its body
 * (as the tokenizer streams them, so as a phrase check sees them): a page whose filter lacks
 * a pair of a quoted phrase cannot hold the phrase, and its body is never read. A phrase of
 * two common words rarely side by side ("ear joadroujadoul" at 100k pages: 21,034 pages
 * hold both) read every body holding both, ~25 µs each. A page's filter is made the first
 * time a phrase query checks the page, from its text, and stays until the page changes:
 * ~0.7 KB a page (the vault's text is ~3.5 KB a page), nothing for a vault nobody searches
 * by phrase. Filters are by page id: the index `forget`s an id's filter when its page changes
 * or goes, and when it files a page at a free id, so a check reads no page object (a phrase of common words checks thousands of
 * pages, and each page's object was a cache miss).
 */
export class PairFilters {
  private chunks: Uint8Array[] = [];
  private used = CHUNK;
  /** Per page id: whether it has a filter, where it is, and its size in bits. */
  private made = new Uint8Array(0);
  private chunkOf = new Uint32Array(0);
  private offsets = new Uint32Array(0);
  private sizes = new Uint32Array(0);
  private live = 0;
  private held = 0;

  /**
   * False when page `id` certainly holds the phrase of `pairs` neither in its title nor in
   * its body; `texts(id)` gives them, called only when the page has no filter yet.
   */
  mayHold(id: number, texts: (id: number) => string[], pairs: PhrasePairs): boolean {
    if (this.made[id] !== 1) this.make(id, texts(id));
    return this.passes(id, pairs);
  }

  /** Whether page `id` has a filter (made by `mayHold`, not yet forgotten). */
  has(id: number): boolean {
    return this.made[id] === 1;
  }

  /** Whether the filter of page `id`, which must have one (see `has`), may hold every pair of `pairs`. */
  passes(id: number, pairs: PhrasePairs): boolean {
    const chunk = this.chunks[this.chunkOf[id]];
    const offset = this.offsets[id] * 8;
    const size = this.sizes[id];
    for (const pair of pairs) {
      const step = (mix(pair ^ 0x5bd1e995) | 1) >>> 0;
      for (let i = 0, at = pair % size; i < PROBES; i++, at = (at + step) % size) {
        const bit = offset + at;
        if ((chunk[bit >>> 3] & (1 << (bit & 7))) === 0) return false;
      }
    }
    return true;
  }

  /** Drops page `id`'s filter: its page changed or went, and the id may go to another page. */
  forget(id: number): void {
    if (this.made[id] !== 1) return;
    this.live -= this.sizes[id] / 8;
    this.made[id] = 0;
  }

  /** Bytes held by the filters' chunks and the arrays by page id. */
  memoryBytes(): number {
    return this.held + this.made.length * 13;
  }

  private make(id: number, texts: string[]): void {
    const pairs: number[] = [];
    for (const text of texts) {
      let previous = -1;
      streamTerms(text, (h) => {
        if (previous >= 0) pairs.push(pairHash(previous, h));
        previous = h;
      });
    }
    const size = Math.max(64, Math.ceil((pairs.length * BITS_PER_PAIR) / 8) * 8);
    const bytes = size / 8;
    if (this.live > 0 && this.held - this.live > this.live + SLACK) this.clear();
    if (this.used + bytes > CHUNK || this.chunks.length === 0) {
      this.chunks.push(new Uint8Array(Math.max(CHUNK, bytes)));
      this.used = 0;
      this.held += Math.max(CHUNK, bytes);
    }
    this.grow(id);
    const chunk = this.chunks[this.chunks.length - 1];
    const offset = this.used;
    for (const pair of pairs) {
      const step = (mix(pair ^ 0x5bd1e995) | 1) >>> 0;
      for (let i = 0, at = pair % size; i < PROBES; i++, at = (at + step) % size) {
        const bit = offset * 8 + at;
        chunk[bit >>> 3] |= 1 << (bit & 7);
      }
    }
    this.used += bytes;
    this.live += bytes;
    this.made[id] = 1;
    this.chunkOf[id] = this.chunks.length - 1;
    this.offsets[id] = offset;
    this.sizes[id] = size;
  }

  /** Drops every filter: pages changed since left more dead bytes than there are live ones. */
  private clear(): void {
    this.chunks = [];
    this.used = CHUNK;
    this.made.fill(0);
    this.live = this.held = 0;
  }

  private grow(id: number): void {
    if (id < this.sizes.length) return;
    const size = Math.max(1024, (id + 1) * 2);
    for (const key of ['chunkOf', 'offsets', 'sizes'] as const) {
      const next = new Uint32Array(size);
      next.set(this[key]);
      this[key] = next;
    }
    const made = new Uint8Array(size);
    made.set(this.made);
    this.made = made;
  }
}

/** The pairs of neighbouring terms of each phrase, hashed as filters hold them. */
export function phrasePairs(terms: readonly string[]): PhrasePairs {
  const hashes = terms.map((t) => termHash(t, 0, t.length));
  return Uint32Array.from(hashes.slice(1), (h, i) => pairHash(hashes[i], h));
}

/** Feeds `sink` the hash of each term of `text`, in order, as scanTerms and tokenize yield them. */
function streamTerms(text: string, sink: (hash: number) => void): void {
  if (isAscii(text)) scanTerms(text, (source, start, end) => sink(termHash(source, start, end)));
  else for (const term of tokenize(text)) sink(termHash(term, 0, term.length));
}

/** FNV-1a over the UTF-16 units of `source.slice(start, end)`. */
function termHash(source: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ source.charCodeAt(i), 16777619);
  return h >>> 0;
}

function pairHash(first: number, second: number): number {
  return mix(Math.imul(first, 0x9e3779b1) ^ second) >>> 0;
}

/** Murmur3's finaliser: every input bit moves every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
