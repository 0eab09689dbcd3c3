import { expect } from 'chai';
import { readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { jsonArrayChunks, jsonEntries, SnapshotStore, type Sections } from '../../../vault-store/knowledge/persist.js';
import { tempDir } from '../../helpers/temp-dir.js';

const bytes = (text: string) => Buffer.from(text);
const text = (section: Uint8Array | undefined) => Buffer.from(section ?? []).toString();

describe('SnapshotStore', () => {
  let dir: { path: string; cleanup: () => void };
  beforeEach(() => (dir = tempDir('quire-index-')));
  afterEach(() => dir.cleanup());

  async function save(commit: string, sections: Sections): Promise<SnapshotStore> {
    const { store } = await SnapshotStore.open(dir.path);
    await store.write(store.prepare(commit, sections));
    return store;
  }

  it('writes a section given as chunks as one file and reads it back whole', async () => {
    await save('c1', { docs: [bytes('ab'), bytes(''), bytes('cde')], terms: bytes('t') });
    const { snapshot } = await SnapshotStore.open(dir.path);
    expect(snapshot?.commit).to.equal('c1');
    expect(text(snapshot?.sections.docs)).to.equal('abcde');
    expect(text(snapshot?.sections.terms)).to.equal('t');
  });

  it('writes a section of more chunks than one writev takes, empty ones among them, in order', async () => {
    // 5,000 chunks: five writev calls of at most 1,024 buffers, each call's cut landing in a different place.
    const chunks = Array.from({ length: 5000 }, (_, i) => bytes(i % 7 === 0 ? '' : `${i},`));
    await save('c1', { docs: chunks });
    const { snapshot } = await SnapshotStore.open(dir.path);
    expect(text(snapshot?.sections.docs)).to.equal(chunks.map((c) => text(c)).join(''));
  });

  it('rewrites only the sections that changed and deletes the files no manifest names any more', async () => {
    const store = await save('c1', { docs: bytes('one'), terms: bytes('same') });
    const first = readdirSync(dir.path).sort();
    await store.write(store.prepare('c2', { docs: bytes('two'), terms: bytes('same') }));
    const second = readdirSync(dir.path).sort();
    expect(second.find((f) => f.startsWith('terms-'))).to.equal(first.find((f) => f.startsWith('terms-')));
    expect(second.find((f) => f.startsWith('docs-'))).to.not.equal(first.find((f) => f.startsWith('docs-')));
    expect(second).to.have.length(first.length);
    const { snapshot } = await SnapshotStore.open(dir.path);
    expect([snapshot?.commit, text(snapshot?.sections.docs), text(snapshot?.sections.terms)]).to.deep.equal(['c2', 'two', 'same']);
  });

  it('writes a streamed section piece by piece, and keeps the old file when the stream made the same bytes', async () => {
    // Past a MB, so the stream is written in more than one batch.
    const piece = Buffer.alloc(300_000, 'x');
    async function* stream(last: string) {
      for (let i = 0; i < 5; i++) yield piece;
      yield bytes(last);
    }
    const store = await save('c1', { metas: () => stream('end') });
    const first = readdirSync(dir.path).sort();
    const expected = Buffer.concat([piece, piece, piece, piece, piece, bytes('end')]);
    expect(Buffer.from((await SnapshotStore.open(dir.path)).snapshot!.sections.metas).equals(expected)).to.equal(true);
    await store.write(store.prepare('c2', { metas: () => stream('end') }));
    expect(readdirSync(dir.path).sort()).to.deep.equal(first);
    await store.write(store.prepare('c3', { metas: () => stream('new') }));
    const { snapshot } = await SnapshotStore.open(dir.path);
    expect(snapshot?.commit).to.equal('c3');
    expect(text(snapshot?.sections.metas).slice(-3)).to.equal('new');
    expect(readdirSync(dir.path).filter((f) => f.startsWith('metas-'))).to.deep.equal(['metas-3.sec']);
  });

  it('keeps serving the last complete save when a later one was cut short, and sweeps its leftovers', async () => {
    await save('c1', { docs: bytes('one') });
    // What a save killed before its manifest leaves: new section files and a temp manifest.
    writeFileSync(join(dir.path, 'docs-2.sec'), 'tw');
    writeFileSync(join(dir.path, '.manifest.quire-tmp-abc'), 'quire-knowledge 1 {');
    const { snapshot } = await SnapshotStore.open(dir.path);
    expect([snapshot?.commit, text(snapshot?.sections.docs)]).to.deep.equal(['c1', 'one']);
    expect(readdirSync(dir.path).sort()).to.deep.equal(['docs-1.sec', 'manifest']);
  });

  it('refuses a torn or edited section and an edited manifest, and clears the folder for a rebuild', async () => {
    await save('c1', { docs: bytes('one'), terms: bytes('terms') });
    truncateSync(join(dir.path, 'docs-1.sec'), 2);
    expect((await SnapshotStore.open(dir.path)).snapshot).to.equal(undefined);
    expect(readdirSync(dir.path)).to.deep.equal([]);

    await save('c1', { docs: bytes('one'), terms: bytes('terms') });
    writeFileSync(join(dir.path, 'terms-1.sec'), 'terns');
    expect((await SnapshotStore.open(dir.path)).snapshot).to.equal(undefined);

    await save('c1', { docs: bytes('one') });
    const manifest = join(dir.path, 'manifest');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"c1"', '"c2"'));
    expect((await SnapshotStore.open(dir.path)).snapshot).to.equal(undefined);
  });

  it('refuses a manifest that names a file outside its folder, even with a right CRC', async () => {
    await save('c1', { docs: bytes('one') });
    // A file beside the folder with the very bytes the manifest expects: it must not be read (or later deleted).
    const outside = `${dir.path}-outside.sec`;
    writeFileSync(outside, 'one');
    const manifest = join(dir.path, 'manifest');
    const json = readFileSync(manifest, 'utf8')
      .split(' ')
      .slice(2)
      .join(' ')
      .replace('docs-1.sec', `../${basename(outside)}`);
    writeFileSync(manifest, `quire-knowledge ${crc32(json)} ${json}`);
    try {
      expect((await SnapshotStore.open(dir.path)).snapshot).to.equal(undefined);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('refuses a snapshot whose append file is shorter than recorded', async () => {
    const { store } = await SnapshotStore.open(dir.path);
    writeFileSync(join(dir.path, 'bodies.dat'), 'abc');
    await store.write(store.prepare('c1', { docs: bytes('one') }, { file: 'bodies.dat', size: 3 }));
    expect((await SnapshotStore.open(dir.path)).snapshot?.append).to.deep.equal({ file: 'bodies.dat', size: 3 });
    truncateSync(join(dir.path, 'bodies.dat'), 2);
    expect((await SnapshotStore.open(dir.path)).snapshot).to.equal(undefined);
  });
});

describe('jsonArrayChunks', () => {
  const pieces = async (stream: AsyncIterable<Uint8Array>) => {
    const all: Uint8Array[] = [];
    for await (const piece of stream) all.push(piece);
    return all;
  };

  it('writes an array in pieces that read back as the whole array', async () => {
    const items = Array.from({ length: 2500 }, (_, i) => ({ i, s: `é${i}` }));
    for (const list of [items, items.slice(0, 1), []]) {
      const chunks = await pieces(jsonArrayChunks(list, 1000));
      expect(JSON.parse(Buffer.concat(chunks).toString())).to.deep.equal(list);
    }
    expect(await pieces(jsonArrayChunks(items, 1000))).to.have.length(4);
  });

  it('writes the entries of a map as [key, value] pairs, as they were when taken (not as the map is later)', async () => {
    const map = new Map(Array.from({ length: 300 }, (_, i) => [`p${i}.md`, { n: i, tags: ['é'] }] as const));
    const empty = await pieces(jsonEntries(new Map())());
    expect(JSON.parse(Buffer.concat(empty).toString())).to.deep.equal([]);
    const section = jsonEntries(map);
    const expected = [...map];
    map.set('later.md', { n: -1, tags: [] });
    map.delete('p0.md');
    const chunks = await pieces(section());
    expect(chunks.length, 'in several chunks').to.be.greaterThan(2);
    expect(JSON.parse(Buffer.concat(chunks).toString())).to.deep.equal(expected);
  });
});
