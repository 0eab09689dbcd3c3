import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { savedIndex } from '../../helpers/saved-index.js';

const QUERIES = ['tomato', 'sun', 'compost', 'garden*', '"tomato sauce"', 'page', 'kitchen', 'tag:x', 'zucchini OR basil', 'again'];
/** Sections saved whole now and then, with the changes since beside them. */
const WHOLE = ['docs', 'tables', 'fields', 'tasks'] as const;
const CHANGES = ['doc-changes', 'table-changes', 'field-changes', 'task-changes'];

/** Every query's results, every page's fields (a query reading them all) and every task, as one string. */
async function answers(k: Knowledge): Promise<string> {
  const search = QUERIES.map((q) => k.search(q, { limit: 50 }).results.map((r) => [r.path, r.score, r.title]));
  const { rows } = await k.query({ limit: 1000, sort: [{ field: 'rank', dir: 'asc' }], fields: ['rank', 'kind'] }, () => true, 2000);
  const tasks = k.tasks({ status: 'all', limit: 1000 }).tasks.map((t) => [t.path, t.line, t.text, t.status]);
  return JSON.stringify({ search, rows, tasks });
}

/**
 * The search docs and term tables, the front-matter fields and the tasks are saved whole now
 * and then, and in between as the pages changed since beside the whole files, kept as they
 * are, whether fields and tasks were read since the open or not: a warm open answers every
 * query as a build from scratch does.
 */
describe('index sections saved as the changes since their whole files', () => {
  const t = savedIndex({
    'a.md': '---\nrank: 1\nkind: a\n---\n# A\n\nTomatoes need sun. See [[B]].\n- [ ] first task\n',
    'b.md': '---\ntags: [x]\nrank: 2\nkind: b\n---\n# B\n\nA tomato sauce with basil.\n- [x] done task\n',
    'c.md': '# C\n\nCompost and the garden.\n',
  });
  const rebuilt = () => t.rebuilt(answers);
  const wholeFiles = () => WHOLE.map((name) => t.sections()[name]);

  it('keeps the whole files through saves of a few changes, read or not, and a warm open answers as a rebuild does', async () => {
    const whole = wholeFiles();
    const knowledge = await t.open();
    // Fields and tasks unread since the open: their changes are noted and saved without reading them.
    await t.write('a.md', '---\nrank: 5\nkind: b\n---\n# A again\n\nZucchini in the garden, no sun.\n- [ ] first task, moved\n');
    await t.write('d.md', '---\nrank: 3\n---\n# D\n\nA page about the kitchen.\n- [ ] new task\n');
    await t.delete('b.md');
    await knowledge.persist();
    expect(wholeFiles()).to.deep.equal(whole);
    expect(t.sections()).to.include.keys(...CHANGES);
    // The page removed leaves its id for the next one; one more past the whole sections' pages.
    await t.write('e.md', '---\ntags: [x]\nrank: 0\n---\n# E\n\nBasil page.\n');
    await t.write('f.md', '# F\n\nTomato sauce again.\n- [ ] f task\n');
    await knowledge.close();
    await t.opened(async (knowledge) => {
      expect(knowledge.loadedFrom).to.equal('persisted');
      // Saved unread again: the changes read back from their sections are kept.
      await t.write('c.md', '---\nrank: 4\nkind: b\n---\n# C again\n\nCompost only.\n- [ ] c task\n');
      await knowledge.persist();
      expect(wholeFiles()).to.deep.equal(whole);
    });
    await t.opened(async (knowledge) => {
      expect(await answers(knowledge)).to.equal(await rebuilt());
      // Read now: later changes are still against the same whole files.
      await t.write('d.md', '---\nrank: 9\nkind: a\n---\n# D\n\nKitchen garden.\n');
      await t.delete('e.md');
      await knowledge.persist();
      expect(wholeFiles()).to.deep.equal(whole);
    });
    await t.opened(async (knowledge) => {
      expect(await answers(knowledge)).to.equal(await rebuilt());
      expect(knowledge.search('zucchini').results.map((r) => r.path)).to.deep.equal(['a.md']);
    });
  });

  it('saves them whole again once the changes pass their bound, then changes against those', async () => {
    const whole = wholeFiles();
    const knowledge = await t.open();
    const many: Record<string, string> = {};
    for (let i = 0; i < 300; i++)
      many[`n/p${i}.md`] = `---\nrank: ${10 + i}\nkind: ${i % 2 ? 'a' : 'b'}\n---\n# P${i}\n\nword${i % 7} tomato\n- [ ] task ${i}\n`;
    await t.commit(many);
    await knowledge.persist();
    const rewritten = wholeFiles();
    rewritten.forEach((file, i) => expect(file, WHOLE[i]).to.not.equal(whole[i]));
    expect(t.sections()).to.not.include.any.keys(...CHANGES);
    await t.commit({ 'n/p1.md': '---\nrank: 1000\n---\n# P1\n\nsun and compost\n', 'n/p2.md': null, 'g.md': '# G\n\nword3 garden\n' });
    await knowledge.close();
    expect(wholeFiles()).to.deep.equal(rewritten);
    await t.opened(async (knowledge) => {
      expect(knowledge.loadedFrom).to.equal('persisted');
      expect(await answers(knowledge)).to.equal(await rebuilt());
    });
  });

  for (const section of ['doc-changes', 'table-changes', 'offsets']) {
    it(`rebuilds rather than serve a torn index when ${section} is damaged`, async () => {
      const knowledge = await t.open();
      await t.write('d.md', '# D\n\nA page about the kitchen.\n');
      await knowledge.close();
      const file = t.sections()[section];
      const bytes = readFileSync(file);
      bytes[bytes.length - 1] ^= 0x01;
      writeFileSync(file, bytes);
      await t.opened(async (knowledge) => {
        expect(knowledge.loadedFrom).to.equal('rebuilt');
        expect(await answers(knowledge)).to.equal(await rebuilt());
      });
    });
  }
});
