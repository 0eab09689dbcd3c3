import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { comparePaths } from '../../../vault-store/git/index-format.js';
import { SortedIndex } from '../../../vault-store/git/index-memory.js';
import { ZERO_STAT, type IndexEntry } from '../../../vault-store/git/index-record.js';
import { ResumableSha1 } from '../../../vault-store/git/resumable-sha1.js';
import { scaled } from '../../helpers/soak.js';

const STEP = 64 * 1024;
const sha1 = (buf: Buffer) => createHash('sha1').update(buf).digest('hex');

describe('the index checksum, resumed from the unchanged beginning', () => {
  it('is the SHA-1 of the whole buffer whatever was kept, grown or cut since the last one', () => {
    const hasher = new ResumableSha1();
    let previous = Buffer.alloc(0);
    let seed = 5;
    const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    for (const size of [0, 1, STEP - 1, STEP, STEP + 1, 5 * STEP + 7, 5 * STEP + 7, 3 * STEP, 6 * STEP, 2 * STEP + 3, 6 * STEP]) {
      // The first `unchanged` bytes as last time (never more than both lengths), the rest new.
      const unchanged = random(Math.min(size, previous.length) + 1);
      const buf = Buffer.concat([previous.subarray(0, unchanged), randomBytes(size - unchanged)]);
      const end = Math.max(0, size - random(3)); // hashed up to `end`, as the index leaves its trailer out
      expect(hasher.digest(buf, end, unchanged).toString('hex'), `size ${size}, unchanged ${unchanged}`).to.equal(
        sha1(buf.subarray(0, end)),
      );
      previous = buf.subarray(0, end);
    }
  });

  it('writes every index right after changes anywhere: its trailer, and what it holds read back as git reads it', () => {
    const entry = (path: string, oid = createHash('sha1').update(path).digest('hex')): IndexEntry => ({
      path,
      oid,
      mode: 0o100644,
      stage: 0,
      flags: { assumeValid: false, skipWorktree: false, intentToAdd: false },
      stat: { ...ZERO_STAT, size: 10 },
    });
    const paths = Array.from({ length: 3000 }, (_, i) => `folder-${i % 40}/page-${i}.md`);
    const index = SortedIndex.fromEntries(paths.map((p) => entry(p)));
    // What the index should hold, kept apart from it.
    const model = new Map(paths.map((p) => [p, entry(p)]));
    const put = (e: IndexEntry) => {
      index.put(e);
      model.set(e.path, e);
      return e.path;
    };
    let seed = 11;
    const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    index.toBuffer(); // the first write: what the hash resumes from
    const rounds = scaled(100, 300);
    for (let round = 0; round < rounds; round++) {
      const path = paths[random(paths.length)];
      const kind = random(5);
      const touched = [path];
      if (kind === 4) {
        // New stat data in place, as git's racy-clean smudge does.
        const at = random(index.size);
        const old = index.entry(at);
        const smudged = { ...old, stat: { ...old.stat, size: 0 } };
        index.replace(at, smudged);
        model.set(old.path, smudged);
        touched.push(old.path);
      } else if (kind === 0) {
        index.remove(path);
        model.delete(path);
      } else if (kind === 1) touched.push(put(entry(`${path}.new`)));
      else put(entry(path, randomBytes(20).toString('hex')));
      if (kind === 3) touched.push(put(entry(paths[random(paths.length)], randomBytes(20).toString('hex'))));
      const file = index.toBuffer();
      expect(sha1(file.subarray(0, file.length - 20)), `round ${round}`).to.equal(file.toString('hex', file.length - 20));
      // Read back as git would, record after record: what the model holds, nothing left over.
      const reread = SortedIndex.fromFile(Buffer.from(file));
      expect(reread.size, `round ${round}`).to.equal(model.size);
      for (const p of touched) expect(find(reread, p), `round ${round}: ${p}`).to.deep.equal(model.get(p));
      if (round % 50 === 0 || round === rounds - 1) {
        const expected = [...model.values()].sort((x, y) => comparePaths(x.path, y.path));
        expect(Array.from({ length: reread.size }, (_, i) => reread.entry(i))).to.deep.equal(expected);
      }
    }
  });
});

/** The entry at `path` (stage 0 only here), by binary search over the index's git order. */
function find(index: SortedIndex, path: string): IndexEntry | undefined {
  let [lo, hi] = [0, index.size];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePaths(index.entry(mid).path, path) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < index.size && index.entry(lo).path === path ? index.entry(lo) : undefined;
}
