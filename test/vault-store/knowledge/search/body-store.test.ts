import { expect } from 'chai';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BodyStore, type BodySave } from '../../../../vault-store/knowledge/search/body-store.js';
import { tempDir } from '../../../helpers/temp-dir.js';

const table = (saved: BodySave) => Buffer.concat(saved.table);
const bodyFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.dat'));

describe('BodyStore', () => {
  let dir: { path: string; cleanup: () => void };
  let store: BodyStore;
  let corrupt: number;
  beforeEach(async () => {
    dir = tempDir('quire-bodies-');
    store = new BodyStore();
    corrupt = 0;
    await store.attach(dir.path, () => corrupt++);
  });
  afterEach(async () => {
    await store.close();
    dir.cleanup();
  });

  it('appends written bodies to its file once a few MB wait, without waiting for a save', () => {
    const body = 'x'.repeat(100_000);
    for (let id = 0; id < 60; id++) store.set(id, `${id}${body}`);
    const [file] = bodyFiles(dir.path);
    expect(statSync(join(dir.path, file)).size).to.be.greaterThan(4_000_000);
    expect(store.get(3)).to.equal(`3${body}`);
    expect(store.get(59)).to.equal(`59${body}`);
  });

  it('reopens at a save: bodies read back, and what was appended after it is cut off', async () => {
    store.set(0, 'zero');
    store.set(2, 'two, ünïcödé');
    store.set(1, 'one');
    store.delete(1);
    const saved = await store.save();
    store.set(3, 'after the save');
    await store.save(); // appended, but the snapshot on disk is still the first
    await store.close();
    store = await BodyStore.open(dir.path, saved, table(saved));
    expect([0, 1, 2, 3].map((id) => store.get(id))).to.deep.equal(['zero', '', 'two, ünïcödé', '']);
    expect(statSync(join(dir.path, saved.file)).size).to.equal(saved.size);
  });

  it('copies the live bodies into a new file when dead bytes outweigh them, and the old save stays readable', async () => {
    const big = (n: number) => `${n}:${'y'.repeat(300_000)}`;
    for (let id = 0; id < 4; id++) store.set(id, big(id));
    const before = await store.save();
    for (let id = 0; id < 4; id++) store.set(id, big(id + 10));
    expect((await store.save()).file, 'as many dead bytes as live ones').to.equal(before.file);
    for (let id = 0; id < 4; id++) store.set(id, big(id + 20));
    store.set(5, 'small');
    const after = await store.save();
    expect(after.file).to.not.equal(before.file);
    expect(after.size).to.equal(4 * big(20).length + 'small'.length);
    expect([0, 3, 5].map((id) => store.get(id))).to.deep.equal([big(20), big(23), 'small']);
    const old = await BodyStore.open(dir.path, before, table(before));
    expect(old.get(2)).to.equal(big(2));
    await old.close();
  });

  it('reads a body that fails its CRC as empty and tells its owner', async () => {
    store.set(0, 'tomatoes need sun');
    const saved = await store.save();
    const file = join(dir.path, saved.file);
    writeFileSync(file, readFileSync(file).toString().replace('sun', 'sin'));
    expect(store.get(0)).to.equal('');
    expect(corrupt).to.equal(1);
  });
});
