import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { storeBlobStream } from '../../../vault-store/git/blob-stream.js';
import { blobLevel } from '../../../vault-store/git/zlib-level.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn } from '../../helpers/temp-vault.js';

const KIB = 1024;

/** Text that deflates well, unlike random bytes: markdown-ish lines. */
function text(bytes: number): Buffer {
  const line = Buffer.from('- [ ] call the plumber about the kitchen tap, see [[Home/Repairs]] #todo\n');
  return Buffer.alloc(bytes, line);
}

/** `data` cut into chunks of `size` bytes, as a request body arrives. */
async function* chunks(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

describe('blobs stored from a stream', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
    gitIn(dir.path, 'init', '-q', '-b', 'main');
  });
  afterEach(() => dir.cleanup());

  it('stores compressed data as it comes (level 0) and deflates the rest (level 1)', () => {
    expect(blobLevel(randomBytes(64 * KIB))).to.equal(0);
    expect(blobLevel(text(64 * KIB))).to.equal(1);
    // Half random, half text: level 1 still saves enough to be worth it.
    expect(blobLevel(Buffer.concat([randomBytes(32 * KIB), text(32 * KIB)]))).to.equal(1);
    // Too little to judge: git's default.
    expect(blobLevel(randomBytes(4 * KIB))).to.equal(1);
  });

  for (const [name, make] of [
    ['random', randomBytes],
    ['text', text],
  ] as const) {
    it(`writes ${name} objects git reads, whatever the chunks and the size (with and without a Content-Length)`, async () => {
      const gitdir = join(dir.path, '.git');
      for (const [bytes, chunk] of [
        [0, 1],
        [10, 3],
        [64 * KIB - 20, 1000],
        [64 * KIB + 7, 4096],
        [300 * KIB, 65_536],
        [300 * KIB, 999],
      ]) {
        const data = make(bytes);
        const written: string[] = [];
        for (const size of [bytes, undefined]) {
          const stored = await storeBlobStream(gitdir, chunks(data, chunk), { size, maxBytes: 1 << 20 }, (p) => written.push(p));
          const file = join(dir.path, `${name}-${bytes}-${chunk}`);
          writeFileSync(file, data);
          expect(stored.oid).to.equal(gitIn(dir.path, 'hash-object', file).trim());
          expect(execFileSync('git', ['cat-file', 'blob', stored.oid], { cwd: dir.path }).equals(data)).to.equal(true);
          expect(readFileSync(stored.file).equals(data)).to.equal(true);
        }
        const object = written[0];
        const raw = inflateSync(readFileSync(object));
        expect(raw.subarray(raw.length - bytes).equals(data)).to.equal(true);
        // A page-like file stays small in git; a random one takes its own size and a little.
        const ratio = statSync(object).size / Math.max(bytes, 1);
        if (name === 'text' && bytes > 64 * KIB) expect(ratio).to.be.below(0.1);
        if (name === 'random' && bytes > 64 * KIB) expect(ratio).to.be.within(1, 1.01);
      }
      execFileSync('git', ['fsck', '--strict', '--no-dangling'], { cwd: dir.path, stdio: 'pipe' });
    });
  }
});
