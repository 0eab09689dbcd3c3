import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { QuireError } from '../../../vault-store/errors.js';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { savedIndex } from '../../helpers/saved-index.js';
import { until } from '../../helpers/until.js';

const listed = (k: Knowledge) => [...k.metas.values()].map((m) => JSON.stringify(m)).sort();

/**
 * Page metas are saved whole now and then, and in between as the metas changed since beside
 * the whole section's file, kept as it is: a warm open reads both back into what was live.
 */
describe('page metas saved as the changes since their whole section', () => {
  const t = savedIndex({ 'a.md': '# A\n\nSee [[B]].\n', 'b.md': '---\ntags: [x]\n---\n# B\n', 'c.md': '# C\n' });

  it('keeps the whole section through saves of a few changes, and a warm open sees every change', async () => {
    const whole = t.sections().metas;
    const knowledge = await t.open();
    await t.write('a.md', '# A again\n\n#new-tag\n');
    await t.write('d.md', '# D\n\n[[C]]\n');
    await t.delete('b.md');
    await knowledge.persist();
    const first = t.sections();
    expect(first.metas).to.equal(whole);
    expect(first).to.have.property('meta-changes');
    // Saved again, the changes include the earlier ones: a page added and gone, and a page back.
    await t.write('e.md', '# E\n');
    await t.delete('e.md');
    await t.write('b.md', '# B is back\n');
    const live = listed(knowledge);
    await knowledge.close();
    expect(t.sections().metas).to.equal(whole);
    await t.opened(async (knowledge) => {
      expect(knowledge.loadedFrom).to.equal('persisted');
      expect(listed(knowledge)).to.deep.equal(live);
      expect(knowledge.metas.get('b.md')?.title).to.equal('B is back');
      expect(knowledge.metas.has('e.md')).to.equal(false);
      // Read back, the changes are still against the same whole section.
      await t.write('c.md', '# C again\n');
      await knowledge.persist();
      expect(t.sections().metas).to.equal(whole);
    });
    await t.opened(async (knowledge) => {
      expect(knowledge.metas.get('c.md')?.title).to.equal('C again');
      expect(knowledge.metas.get('a.md')?.tags).to.include('new-tag');
      expect(knowledge.metas.has('d.md')).to.equal(true);
    });
  });

  it('answers VAULT_BUSY and rebuilds when the changes were damaged after the open, never serving the whole section alone', async () => {
    const knowledge = await t.open();
    await t.write('d.md', '# D\n');
    await knowledge.close();
    await t.opened(async (knowledge) => {
      expect(knowledge.loadedFrom).to.equal('persisted');
      const file = t.sections()['meta-changes'];
      const bytes = readFileSync(file);
      bytes[bytes.length - 2] ^= 0x20;
      writeFileSync(file, bytes);
      let thrown: unknown;
      try {
        void knowledge.metas.size;
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(QuireError);
      expect((thrown as QuireError).code).to.equal('VAULT_BUSY');
      await until('the rebuild', 10_000, () => {
        try {
          return knowledge.metas.has('d.md');
        } catch {
          return false;
        }
      });
      expect([...knowledge.metas.keys()].sort()).to.deep.equal(['a.md', 'b.md', 'c.md', 'd.md']);
    });
  });

  it('leaves the metas on disk through writes after a warm open, the changes noted beside them', async () => {
    const knowledge = await t.open();
    try {
      // Damaged after the open: a write that read the metas would fail to file its page.
      const file = t.sections().metas;
      const bytes = readFileSync(file);
      bytes[bytes.length - 2] ^= 0x20;
      writeFileSync(file, bytes);
      await t.write('d.md', '# D\n\nDelphinium.\n');
      await t.delete('c.md');
      expect(knowledge.search('delphinium').results.map((r) => r.path)).to.deep.equal(['d.md']);
      expect(() => knowledge.metas.size).to.throw(QuireError, /rebuilt/);
    } finally {
      await knowledge.close();
    }
  });

  it('saves them whole again once the changes pass their bound, then changes against that section', async () => {
    const whole = t.sections().metas;
    const knowledge = await t.open();
    const many: Record<string, string> = {};
    for (let i = 0; i < 300; i++) many[`n/p${i}.md`] = `# Page ${i}\n`;
    await t.commit(many);
    await knowledge.persist();
    const rewritten = t.sections();
    expect(rewritten.metas).to.not.equal(whole);
    expect(rewritten).to.not.have.property('meta-changes');
    await t.commit({ 'n/p1.md': '# Page one\n', 'n/p2.md': null });
    const live = listed(knowledge);
    await knowledge.close();
    expect(t.sections().metas).to.equal(rewritten.metas);
    await t.opened(async (knowledge) => {
      expect(listed(knowledge)).to.deep.equal(live);
      expect(knowledge.metas.get('n/p1.md')?.title).to.equal('Page one');
      expect(knowledge.metas.size).to.equal(302);
    });
  });
});
