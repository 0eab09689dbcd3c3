import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { exportZip } from '../../../vault-store/export/export-zip.js';
import { ObjectReader } from '../../../vault-store/git/object-reader.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

/** Extracts a zip with system unzip; returns its file list (no folder entries). */
function unzip(zip: string, into: string): string[] {
  execFileSync('unzip', ['-q', zip, '-d', into]);
  return execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' })
    .split('\n')
    .filter((n) => n && !n.endsWith('/'))
    .sort();
}

async function seeded(pages: number): Promise<TempVault> {
  const v = await tempVault();
  await v.vault.mutate(testAuthor, 'Seed', () => [
    ...Array.from({ length: pages }, (_, i) => ({
      path: `folder-${i % 7}/page ${i}.md`,
      content: new TextEncoder().encode(`# Page ${i}\n\n${'Some words about things. '.repeat(i % 40)}\n`),
    })),
    { path: 'attachments/pic.png', content: new Uint8Array(Array.from({ length: 5000 }, (_, i) => (i * 31) % 256)) },
    { path: 'tiny.md', content: new TextEncoder().encode('x') },
    { path: 'Ünïcode/naïve café.md', content: new TextEncoder().encode('accents') },
  ]);
  return v;
}

describe('exportZip', () => {
  let v: TempVault;
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('quire-export-');
  });
  afterEach(() => {
    v?.cleanup();
    tmp.cleanup();
  });

  it('equals git archive of the same commit, file for file, while writes land', async () => {
    v = await seeded(300);
    const commit = v.vault.head;
    const ours = join(tmp.path, 'ours.zip');
    const exporting = exportZip(v.vault, { commit }, createWriteStream(ours));
    const writes = Array.from({ length: 30 }, (_, i) =>
      v.pages.write(testAuthor, { path: `folder-${i % 7}/page ${i}.md`, content: `rewritten ${i}` }),
    );
    const [result] = await Promise.all([exporting, ...writes]);
    expect(v.vault.head).to.not.equal(commit);
    expect(result).to.deep.equal({ commit, files: 304 }); // 300 pages, 3 seeded files, .gitignore
    execFileSync('git', ['archive', '--format=zip', '-o', join(tmp.path, 'git.zip'), commit], { cwd: v.dir });
    const ourFiles = unzip(ours, join(tmp.path, 'a'));
    expect(ourFiles).to.deep.equal(unzip(join(tmp.path, 'git.zip'), join(tmp.path, 'b')));
    expect(ourFiles).to.include('Ünïcode/naïve café.md');
    for (const name of ourFiles) {
      expect(readFileSync(join(tmp.path, 'a', name)).equals(readFileSync(join(tmp.path, 'b', name))), name).to.equal(true);
    }
    execFileSync('unzip', ['-tq', ours]);
  });

  it('leaves out what the caller may not see', async () => {
    v = await seeded(20);
    const zip = join(tmp.path, 'agent.zip');
    const result = await exportZip(v.vault, { visible: (p) => p.startsWith('folder-1/') }, createWriteStream(zip));
    const files = unzip(zip, join(tmp.path, 'x'));
    expect(files).to.deep.equal(['folder-1/page 1.md', 'folder-1/page 15.md', 'folder-1/page 8.md']);
    expect(result.files).to.equal(3);
    expect(result.commit).to.equal(v.vault.head);
  });

  it('stops reading blobs when the download is aborted', async () => {
    v = await seeded(400);
    let reads = 0;
    const original = ObjectReader.prototype.blob;
    ObjectReader.prototype.blob = function (oid: string) {
      reads += 1;
      return original.call(this, oid);
    };
    try {
      // A client that takes the first chunks and then stops reading.
      const stalled = new Writable({
        highWaterMark: 1024,
        write: (_chunk, _enc, cb) => {
          if (reads < 50) cb();
        },
      });
      const controller = new AbortController();
      const exporting = exportZip(v.vault, { signal: controller.signal }, stalled);
      await new Promise((r) => setTimeout(r, 200));
      const stalledAt = reads;
      expect(stalledAt).to.be.greaterThan(0).and.lessThan(200);
      controller.abort();
      const err = await exporting.catch((e: Error) => e);
      expect((err as Error).name).to.equal('AbortError');
      await new Promise((r) => setTimeout(r, 100));
      expect(reads).to.equal(stalledAt);
      expect(stalled.writableEnded).to.equal(false);
    } finally {
      ObjectReader.prototype.blob = original;
    }
  });

  it('stops when the output closes early (client disconnect)', async () => {
    v = await seeded(400);
    const out = new Writable({ highWaterMark: 1024, write: (_chunk, _enc, cb) => setTimeout(cb, 5) });
    const exporting = exportZip(v.vault, {}, out);
    setTimeout(() => out.destroy(), 50);
    const err = await exporting.catch((e: Error) => e);
    expect((err as Error).name).to.equal('AbortError');
  });

  it('refuses a commit that is not in the vault, and ids that are not ids', async () => {
    v = await seeded(1);
    // Not a file: a write stream nobody ends may open its file after afterEach removed the folder.
    const sink = new Writable({ write: (_chunk, _enc, cb) => cb() });
    for (const commit of ['f'.repeat(40), '../../../../../etc/hostname']) {
      const err = await exportZip(v.vault, { commit }, sink).catch((e) => e);
      expect(err.code, commit).to.equal('NOT_FOUND');
    }
  });

  it('exports a packed vault too', async () => {
    v = await seeded(50);
    gitIn(v.dir, 'gc', '-q');
    const zip = join(tmp.path, 'packed.zip');
    const result = await exportZip(v.vault, {}, createWriteStream(zip));
    expect(result.files).to.equal(54);
    execFileSync('unzip', ['-tq', zip]);
  });
});
