import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { Knowledge } from '../../../../vault-store/knowledge/knowledge.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { tempVault } from '../../../helpers/temp-vault.js';

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/relevance.json', import.meta.url), 'utf8')) as {
  pages: Record<string, string>;
  queries: { q: string; first: string }[];
};

describe('search, similar and ask on the relevance fixture', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let indexDir: { path: string; cleanup: () => void };
  let knowledge: Knowledge;

  before(async () => {
    ctx = await tempVault({
      ...fixture.pages,
      'misc/Sun in body.md': '# Misc\n\nsun sun sun sun sun, the word sun many times: sun.\n',
      'misc/Sun.md': '# Sun\n\nA star.\n',
    });
    indexDir = tempDir('quire-index-');
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
  });
  after(async () => {
    await knowledge.close();
    ctx.cleanup();
    indexDir.cleanup();
  });

  const paths = (q: string, options = {}) => knowledge.search(q, options).results.map((r) => r.path);

  it('puts the labelled page first often enough (MRR ≥ 0.9)', () => {
    const rr = fixture.queries.map(({ q, first }) => {
      const at = paths(q).indexOf(first);
      return at < 0 ? 0 : 1 / (at + 1);
    });
    const mrr = rr.reduce((a, b) => a + b, 0) / rr.length;
    expect(
      mrr,
      fixture.queries
        .filter((_, i) => rr[i] < 1)
        .map((x) => x.q)
        .join(', '),
    ).to.be.at.least(0.9);
  });

  it('ranks a title match above a body that repeats the word', () => {
    expect(paths('sun')[0]).to.equal('misc/Sun.md');
  });

  it('requires quoted phrases to appear side by side', () => {
    expect(paths('"twice a week"')).to.have.members(['garden/Tomatoes.md', 'garden/Watering schedule.md']);
    expect(paths('"week twice"')).to.deep.equal([]);
  });

  it('completes prefixes, explicit and as-you-type', () => {
    expect(paths('ferment*')).to.deep.equal(['kitchen/Sourdough.md']);
    expect(paths('lovel')[0]).to.equal('people/Ada Lovelace.md');
    expect(paths('lovel '), 'a finished word is not a prefix').not.to.include('people/Ada Lovelace.md');
  });

  it('suggests a correction for a typo and still finds the page', () => {
    const set = knowledge.search('compsot heap');
    expect(set.suggestion).to.equal('compost heap');
    expect(set.results[0].path).to.equal('garden/Compost.md');
  });

  it('finds CJK text by any word inside a run', () => {
    expect(paths('紅葉')).to.deep.equal(['travel/京都旅行.md']);
    expect(paths('清水寺')).to.deep.equal(['travel/京都旅行.md']);
  });

  it('marks matched words in the snippet', () => {
    const [hit] = knowledge.search('whetstone').results;
    expect(hit.snippet).to.contain('**whetstone**');
    expect(hit).to.include({
      path: 'kitchen/Knife care.md',
      title: 'Knife care',
      hash: ctx.vault.manifest.get('kitchen/Knife care.md')!.oid,
    });
  });

  it('filters by prefix, tag and visibility before cutting to the limit', () => {
    expect(paths('tomatoes', { prefix: 'kitchen/' })).to.deep.equal(['kitchen/Tomato sauce.md']);
    expect(paths('release', { tag: 'work' })).to.deep.equal(['work/Release checklist.md']);
    const visible = (p: string) => !p.startsWith('garden/');
    expect(paths('tomatoes', { visible, limit: 1 })).to.deep.equal(['kitchen/Tomato sauce.md']);
  });

  it('finds similar pages by page and by text', () => {
    expect(knowledge.similar({ path: 'garden/Tomatoes.md' }).results[0].path).to.be.oneOf([
      'garden/Watering schedule.md',
      'garden/Compost.md',
      'kitchen/Tomato sauce.md',
    ]);
    expect(knowledge.similar({ text: 'proofing dough overnight with a starter' }).results[0].path).to.equal('kitchen/Sourdough.md');
    expect(
      knowledge.similar({ path: 'garden/Tomatoes.md' }, 10, (p) => !p.startsWith('kitchen/')).results.map((r) => r.path),
    ).not.to.include('kitchen/Tomato sauce.md');
  });

  it('answers from the page that holds the answer and cites it', () => {
    const answer = knowledge.ask({ question: 'How long does bulk fermentation take?', maxPages: 3 });
    expect(answer.citations[0]).to.include({ path: 'kitchen/Sourdough.md', hash: ctx.vault.manifest.get('kitchen/Sourdough.md')!.oid });
    expect(answer.answer).to.contain('five hours');
    expect(answer.pages_used).to.be.within(1, 3);
  });

  it('refuses max_pages outside 1..20', () => {
    expect(() => knowledge.ask({ question: 'tomatoes', maxPages: 21 }))
      .to.throw()
      .with.property('code', 'INVALID_REQUEST');
  });
});
