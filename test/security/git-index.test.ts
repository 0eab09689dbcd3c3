import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { IndexFileError, serializeIndex } from '../../vault-store/git/index-format.js';
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

  it('never throws anything but IndexFileError, whatever bytes are flipped', () => {
    const original = valid();
    let seed = 17;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 2000; round++) {
      const buf = Buffer.from(original);
      for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--)
        buf[Math.floor(random() * (buf.length - 20))] ^= 1 << Math.floor(random() * 8);
      try {
        indexEntriesOf(reframed(buf));
      } catch (err) {
        expect(err, `round ${round}`).to.be.instanceOf(IndexFileError);
      }
    }
  });
});
