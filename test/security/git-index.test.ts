import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { IndexFileError, serializeIndex } from '../../vault-store/git/index-format.js';
import { SortedIndex } from '../../vault-store/git/index-memory.js';
import { ZERO_STAT, type IndexEntry } from '../../vault-store/git/index-record.js';
import { indexEntriesOf } from '../helpers/index-entries.js';

/**
 * `.git/index` is a file anyone with the folder can write (git, a sync client, a hostile
 * push hook). Whatever its bytes under a valid checksum, reading it ends in entries or an
 * IndexFileError (corrupt → rebuilt; unsupported → left to git), never another exception.
 */
describe('a hostile .git/index', () => {
  const entry = (path: string): IndexEntry => ({
    path,
    oid: createHash('sha1').update(path).digest('hex'),
    mode: 0o100644,
    stage: 0,
    flags: { assumeValid: false, skipWorktree: false, intentToAdd: false },
    stat: { ...ZERO_STAT, size: 3 },
  });
  const valid = () => serializeIndex(['a.md', 'notes/b.md', 'z/é.md', `${'x'.repeat(5000)}.md`].map(entry));

  /** The trailing SHA-1 made right again, so the damage is what is read, not refused by the checksum. */
  function reframed(buf: Buffer): Buffer {
    createHash('sha1')
      .update(buf.subarray(0, buf.length - 20))
      .digest()
      .copy(buf, buf.length - 20);
    return buf;
  }

  const refused = (buf: Buffer, reason: 'corrupt' | 'unsupported') =>
    expect(() => indexEntriesOf(reframed(buf)))
      .to.throw(IndexFileError)
      .with.property('reason', reason);

  it('is read back as written when intact, a name longer than the 12-bit length field included', () => {
    expect(indexEntriesOf(valid()).map((e) => e.path)).to.deep.equal(['a.md', 'notes/b.md', `${'x'.repeat(5000)}.md`, 'z/é.md']);
  });

  it('is refused as corrupt when its count, lengths or names do not fit the file', () => {
    const count = valid();
    count.writeUInt32BE(0x7fffffff, 8);
    refused(count, 'corrupt');
    const cut = valid();
    refused(Buffer.concat([cut.subarray(0, 100), cut.subarray(cut.length - 20)]), 'corrupt');
    const long = valid();
    long.writeUInt16BE(0xffe, 12 + 60); // the first name said to run past its NUL
    refused(long, 'corrupt');
    const extended = valid();
    extended[12 + 60] |= 0x40; // extended flags in a version 2 file
    refused(extended, 'corrupt');
  });

  it('is refused as unsupported when a path is not UTF-8', () => {
    const bad = valid();
    bad[12 + 62] = 0xff;
    refused(bad, 'unsupported');
  });

  /** Reads `original` 2,000 times with 1–4 bits flipped (checksum made right): entries or IndexFileError only. */
  function flipped(original: Buffer, seed: number, read: (buf: Buffer) => unknown): void {
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 2000; round++) {
      const buf = Buffer.from(original);
      for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--)
        buf[Math.floor(random() * (buf.length - 20))] ^= 1 << Math.floor(random() * 8);
      try {
        read(reframed(buf));
      } catch (err) {
        expect(err, `round ${round}`).to.be.instanceOf(IndexFileError);
      }
    }
  }

  it('never throws anything but IndexFileError, whatever bytes are flipped', () => {
    flipped(valid(), 17, indexEntriesOf);
  });
  describe('split in two (core.splitIndex)', () => {
    const shared = valid();
    const base = shared.subarray(shared.length - 20);

    /** Git's EWAH serialisation of `bits`: one marker word with no run, then literal words. */
    function ewah(bits: number[], words = Math.max(0, ...bits.map((b) => (b >> 6) + 1))): Buffer {
      const out = Buffer.alloc(8 + 8 * (words + 1) + 4);
      out.writeUInt32BE(bits.length ? Math.max(...bits) + 1 : 0, 0);
      out.writeUInt32BE(words + 1, 4);
      out.writeUInt32BE(words << 1, 8); // the marker: no run, `words` literal words
      for (const bit of bits) {
        const at = 16 + 8 * (bit >> 6) + ((bit & 63) < 32 ? 4 : 0);
        out.writeUInt32BE((out.readUInt32BE(at) | (1 << (bit & 31))) >>> 0, at);
      }
      return out;
    }

    /** A split index of `entries` whose link extension is `payload` (by default: `base`, then the two bitmaps). */
    function split(entries: IndexEntry[], deleted: number[], replaced: number[], payload?: Buffer): Buffer {
      const data = payload ?? Buffer.concat([base, ewah(deleted), ewah(replaced)]);
      const records = serializeIndex(entries);
      const head = Buffer.alloc(8);
      head.write('link', 0, 'latin1');
      head.writeUInt32BE(data.length, 4);
      return reframed(Buffer.concat([records.subarray(0, records.length - 20), head, data, Buffer.alloc(20)]));
    }

    const read = (buf: Buffer) => {
      const index = SortedIndex.fromFile(buf, (b) => (b === base.toString('hex') ? shared : undefined));
      return Array.from({ length: index.size }, (_, i) => index.entry(i));
    };
    const corrupt = (buf: Buffer) =>
      expect(() => read(buf))
        .to.throw(IndexFileError)
        .with.property('reason', 'corrupt');

    it('is read merged when its bitmaps are sound: one replaced, one deleted, one added', () => {
      const replacement = { ...entry(''), oid: 'f'.repeat(40) };
      const merged = read(split([replacement, entry('m.md')], [1], [0]));
      expect(merged.map((e) => e.path)).to.deep.equal(['a.md', 'm.md', `${'x'.repeat(5000)}.md`, 'z/é.md']);
      expect(merged[0].oid).to.equal('f'.repeat(40));
    });

    it('is refused as corrupt when its link extension lies about the shared index', () => {
      const nameless = entry('');
      corrupt(split([], [9], [])); // past the shared index's four entries
      corrupt(split([nameless], [0], [0])); // deleted and replaced
      corrupt(split([], [], [0])); // a replacement with no entry
      corrupt(split([entry('a.md')], [], [0])); // a replacement naming its path
      corrupt(split([nameless], [], [])); // an added entry with no path
      corrupt(split([], [], [], Buffer.concat([base, ewah([1]).subarray(0, 12)]))); // a bitmap cut short
      corrupt(split([], [], [], Buffer.concat([base, ewah([]), ewah([]), Buffer.from('x')]))); // garbage after
      corrupt(split([], [], [], base.subarray(0, 12))); // no whole base id
      expect(() => indexEntriesOf(split([], [], []))).to.throw(IndexFileError, /missing/); // no shared index found
    });

    it('never throws anything but IndexFileError, whatever bytes of the split part are flipped', () => {
      flipped(split([{ ...entry(''), oid: 'f'.repeat(40) }, entry('m.md')], [1], [0]), 29, read);
    });
  });
});
