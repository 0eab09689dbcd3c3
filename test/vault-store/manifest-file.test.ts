import { expect } from 'chai';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Manifest } from '../../vault-store/manifest.js';
import { manifestFileBytes, readManifestFile } from '../../vault-store/manifest-file.js';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { tempDir } from '../helpers/temp-dir.js';
import { gitIn, tempVault, testAuthor } from '../helpers/temp-vault.js';

/** Everything a manifest answers, in a comparable form. */
function shapeOf(manifest: Manifest) {
  const files = [...manifest.entries()].map(([path, { oid }]) => [path, oid, manifest.isHidden(path)]).sort();
  const paths = files.map(([path]) => path as string);
  return {
    files,
    links: [...manifest.symlinks()].sort(),
    pages: manifest.pages(),
    vaultFiles: manifest.vaultFiles(),
    twins: paths.map((path) => manifest.caseTwin(path.toUpperCase())),
    folders: paths.flatMap((path) => path.split('/').slice(0, -1)).map((folder) => manifest.isFolder(folder)),
  };
}

/** A vault as the folder would hold one after some life: hidden files, a link, a case twin, non-ASCII names, nesting. */
async function livedInVault() {
  const ctx = await tempVault({ 'Notes/Café.md': 'one', 'notes/deep/er/b.md': 'two', 'img/a.png': 'png', 'ünï/cödé.md': 'three' });
  mkdirSync(join(ctx.dir, '.obsidian'));
  writeFileSync(join(ctx.dir, '.obsidian', 'app.json'), '{}');
  symlinkSync('Notes', join(ctx.dir, 'link'));
  gitIn(ctx.dir, 'add', '-A');
  gitIn(ctx.dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'outside');
  return ctx;
}

async function treeOf(vault: Vault): Promise<string> {
  return (await vault.repo.objects.commit(vault.head)).tree;
}

describe('the saved manifest (tree-files)', () => {
  let ctx: Awaited<ReturnType<typeof livedInVault>>;
  let index: ReturnType<typeof tempDir>;
  let file: string;
  beforeEach(async () => {
    ctx = await livedInVault();
    index = tempDir('quire-index-');
    file = join(index.path, 'tree-files');
  });
  afterEach(() => {
    ctx.cleanup();
    index.cleanup();
  });

  it('reads back exactly the manifest of a walk: hidden files, links, case, folders, non-ASCII paths', async () => {
    const walked = await Vault.open(ctx.dir);
    const tree = await treeOf(walked);
    writeFileSync(file, manifestFileBytes(walked.manifest, tree));
    const read = await readManifestFile(file, tree);
    expect(read).to.not.equal(undefined);
    expect(shapeOf(read!)).to.deep.equal(shapeOf(walked.manifest));
    expect(read!.symlinkOn('link/x.md')).to.equal('link');
    expect(read!.caseTwin('notes/café.md')).to.equal('Notes/Café.md');
  });

  it('is what the next open at the same tree uses, without walking the tree', async () => {
    const first = await Vault.open(ctx.dir, { manifestFile: file });
    const tree = await treeOf(first);
    expect(await readManifestFile(file, tree), 'saved after the walk').to.not.equal(undefined);
    // A file for this tree naming one more file than git holds: an open that reads it shows that file.
    const doctored = await Vault.open(ctx.dir);
    doctored.manifest.set('only-in-the-file.md', { oid: 'f'.repeat(40) });
    writeFileSync(file, manifestFileBytes(doctored.manifest, tree));
    const reopened = await Vault.open(ctx.dir, { manifestFile: file });
    expect(reopened.manifest.get('only-in-the-file.md')?.oid).to.equal('f'.repeat(40));
  });

  for (const [damage, harm] of [
    ['a flipped byte', (bytes: Buffer) => void (bytes[bytes.length - 3] ^= 1)],
    ['a cut', (bytes: Buffer) => bytes.subarray(0, bytes.length - 10)],
    [
      'another version',
      (bytes: Buffer) => Buffer.from(bytes.toString('latin1').replace(/^quire-tree-files 1 /, 'quire-tree-files 9 '), 'latin1'),
    ],
    ['garbage', () => Buffer.from('not a manifest\n')],
    ['nothing', () => Buffer.alloc(0)],
  ] as const) {
    it(`falls back to walking the tree when the file has ${damage}, and saves it again`, async () => {
      const first = await Vault.open(ctx.dir, { manifestFile: file });
      first.manifest.set('only-in-the-file.md', { oid: 'f'.repeat(40) });
      const bytes = Buffer.from(manifestFileBytes(first.manifest, await treeOf(first)));
      writeFileSync(file, harm(bytes) ?? bytes);
      const reopened = await Vault.open(ctx.dir, { manifestFile: file });
      expect(reopened.manifest.get('only-in-the-file.md')).to.equal(undefined);
      expect(shapeOf(reopened.manifest)).to.deep.equal(shapeOf((await Vault.open(ctx.dir)).manifest));
      expect(await readManifestFile(file, await treeOf(reopened)), 'saved again').to.not.equal(undefined);
    });
  }

  it('is not used after commits made outside while the vault was closed: the open walks the new tree', async () => {
    const first = await Vault.open(ctx.dir, { manifestFile: file });
    await first.settle();
    const saved = readFileSync(file);
    writeFileSync(join(ctx.dir, 'outside.md'), 'made by git');
    gitIn(ctx.dir, 'rm', '-q', 'img/a.png');
    gitIn(ctx.dir, 'add', '-A');
    gitIn(ctx.dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'outside again');
    const reopened = await Vault.open(ctx.dir, { manifestFile: file });
    expect(reopened.manifest.get('outside.md')).to.not.equal(undefined);
    expect(reopened.manifest.get('img/a.png')).to.equal(undefined);
    expect(shapeOf(reopened.manifest)).to.deep.equal(shapeOf((await Vault.open(ctx.dir)).manifest));
    expect(readFileSync(file).equals(saved), 'saved for the new tree').to.equal(false);
  });

  it('after server writes and a settle, holds the head tree: the next open reads it and equals a walk', async () => {
    const vault = await Vault.open(ctx.dir, { manifestFile: file });
    const pages = new Pages(vault);
    await pages.write(testAuthor, { path: 'new/page.md', content: 'new' });
    await pages.delete(testAuthor, { path: 'notes/deep/er/b.md' });
    await pages.write(testAuthor, { path: 'Notes/Café.md', content: 'changed' });
    await vault.settle();
    const tree = await treeOf(vault);
    const saved = await readManifestFile(file, tree);
    expect(saved, 'saved at the head tree').to.not.equal(undefined);
    const walked = (await Vault.open(ctx.dir)).manifest;
    expect(shapeOf(saved!)).to.deep.equal(shapeOf(walked));
    expect(shapeOf((await Vault.open(ctx.dir, { manifestFile: file })).manifest)).to.deep.equal(shapeOf(walked));
  });
});
