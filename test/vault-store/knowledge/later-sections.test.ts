import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { QuireError } from '../../../vault-store/errors.js';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../../vault-store/pages.js';
import { indexSections } from '../../helpers/index-sections.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';

const seed = {
  'a.md': '---\nrating: 4\n---\n# A\n\n- [ ] water the plants 📅 2030-01-02\n- [x] buy soil\n',
  'b.md': '---\nrating: 2\n---\n# B\n\nSee [[A]].\n',
};

const allTasks = (k: Knowledge) => k.tasks({ status: 'all', limit: 100 }).tasks.map((t) => [t.path, t.text, t.done]);
const rated = async (k: Knowledge) =>
  (await k.query({ where: { '>=': [{ var: 'rating' }, 1] }, sort: [{ field: 'path' }], limit: 10 }, () => true, 2000)).rows;

/**
 * A warm open reads only what search needs; page metas, front-matter fields and tasks stay
 * on disk until asked for, and are checked (size, CRC) when read, never served torn.
 */
describe('index sections left on disk by a warm open', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let index: ReturnType<typeof tempDir>;
  const open = () => Knowledge.open(ctx.vault, { indexDir: index.path, persistDelayMs: false });

  beforeEach(async () => {
    ctx = await tempVault(seed);
    index = tempDir('quire-index-');
    await (await open()).close();
  });
  afterEach(() => {
    ctx.cleanup();
    index.cleanup();
  });

  for (const section of ['metas', 'fields', 'tasks']) {
    it(`answers VAULT_BUSY and rebuilds when the ${section} section was damaged after the open, then answers right`, async () => {
      const knowledge = await open();
      try {
        expect(knowledge.loadedFrom).to.equal('persisted');
        const file = indexSections(index.path)[section];
        const bytes = readFileSync(file);
        bytes[bytes.length - 2] ^= 0x20;
        writeFileSync(file, bytes);
        const read = { metas: () => [...knowledge.metas.keys()], fields: () => rated(knowledge), tasks: () => allTasks(knowledge) }[
          section
        ]!;
        let thrown: unknown;
        try {
          await read();
        } catch (err) {
          thrown = err;
        }
        expect(thrown).to.be.instanceOf(QuireError);
        expect((thrown as QuireError).code).to.equal('VAULT_BUSY');
        await until('the rebuild', 10_000, async () => {
          try {
            return (await read()) !== undefined;
          } catch {
            return false;
          }
        });
        expect([...knowledge.metas.keys()].sort()).to.deep.equal(['a.md', 'b.md']);
        expect((await rated(knowledge)).map((r) => r.path)).to.deep.equal(['a.md', 'b.md']);
        expect(allTasks(knowledge)).to.have.length(2);
      } finally {
        await knowledge.close();
      }
    });
  }

  it('saves tasks changed twice after the open, though the first save replaced the file they were read from', async () => {
    let knowledge = await open();
    const pages = new Pages(ctx.vault);
    await pages.write(testAuthor, { path: 'c.md', content: '- [ ] first task\n' });
    await knowledge.persist();
    await pages.write(testAuthor, { path: 'd.md', content: '- [ ] second task\n' });
    await knowledge.persist();
    await knowledge.close();
    knowledge = await open();
    try {
      expect(knowledge.loadedFrom).to.equal('persisted');
      expect(allTasks(knowledge).map(([path]) => path)).to.have.members(['a.md', 'a.md', 'c.md', 'd.md']);
    } finally {
      await knowledge.close();
    }
  });
});
