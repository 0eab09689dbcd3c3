import { expect } from 'chai';
import { buildContextPack, type ContextSource } from '../../../vault-store/context/context-pack.js';
import { excerpt } from '../../../vault-store/context/excerpt.js';
import { estimateTokens, truncateToTokens } from '../../../vault-store/context/tokens.js';

const filler = (word: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i} about ${i % 7 === 3 ? word : 'other things'} and more text to fill the line.`).join(
    '\n\n',
  );

const PAGES: Record<string, { hash: string; title: string; content: string }> = {
  'p/garden.md': { hash: 'a'.repeat(40), title: 'Garden', content: `# Garden\n\n${filler('tomatoes', 60)}\n` },
  'p/tomatoes.md': { hash: 'b'.repeat(40), title: 'Tomatoes', content: '# Tomatoes\n\nTomatoes want sun. 日本語のメモ。\n' },
  'p/soil.md': { hash: 'c'.repeat(40), title: 'Soil', content: `# Soil\n\n${filler('compost', 200)}\n` },
};

const source: ContextSource = {
  guideSummary: 'Gardening notes live under p/.',
  rank: () => ['p/tomatoes.md', 'p/garden.md', 'p/soil.md'],
  read: async (path) => PAGES[path],
  neighbours: (path) => (path === 'p/tomatoes.md' ? ['Garden', 'Soil'] : []),
};

describe('context packs', () => {
  it('never exceed the budget, for budgets small and large', async () => {
    for (const maxTokens of [200, 300, 500, 1000, 2500, 4000, 20000]) {
      const result = await buildContextPack(source, { topic: 'tomatoes', maxTokens });
      expect(result.tokens, `budget ${maxTokens}`).to.be.at.most(maxTokens);
      expect(estimateTokens(result.pack)).to.equal(result.tokens);
      expect(result.pages.length).to.be.greaterThan(0);
    }
  });

  it('puts the guide first, then pages labelled with path and hash, with linked titles', async () => {
    const { pack, pages } = await buildContextPack(source, { topic: 'tomatoes', maxTokens: 20000 });
    expect(pack.startsWith('# Context: tomatoes\n\n## Vault guide (summary)\n\nGardening notes live under p/.')).to.equal(true);
    expect(pack).to.include(`## Tomatoes\npath: p/tomatoes.md · hash: ${'b'.repeat(40)}\n\n# Tomatoes`);
    expect(pack).to.include('Linked: [[Garden]], [[Soil]]');
    expect(pages.map((p) => [p.path, p.excerpt])).to.deep.equal([
      ['p/tomatoes.md', false],
      ['p/garden.md', false],
      ['p/soil.md', false],
    ]);
  });

  it('excerpts a page around the topic when it does not fit whole, and puts asked-for pages first', async () => {
    const { pack, pages } = await buildContextPack(source, { topic: 'compost', maxTokens: 1500, paths: ['p/soil.md'] });
    expect(pages[0]).to.deep.include({ path: 'p/soil.md', excerpt: true });
    expect(pack).to.include('path: p/soil.md · hash: ' + 'c'.repeat(40) + ' · excerpt');
    const soil = pack.slice(pack.indexOf('## Soil'));
    expect((soil.match(/compost/g) ?? []).length).to.be.greaterThan(5);
    expect(soil).to.include('…');
  });

  it('gives the same pack for the same request', async () => {
    const a = await buildContextPack(source, { topic: 'tomatoes soil', maxTokens: 900 });
    const b = await buildContextPack(source, { topic: 'tomatoes soil', maxTokens: 900 });
    expect(a).to.deep.equal(b);
  });

  it('counts non-ASCII characters as whole tokens and truncates within the budget', () => {
    expect(estimateTokens('abcd')).to.equal(1);
    expect(estimateTokens('abcde')).to.equal(2);
    expect(estimateTokens('日本語')).to.equal(3);
    const cut = truncateToTokens('word '.repeat(100), 10);
    expect(estimateTokens(cut)).to.be.at.most(10);
    expect(cut.endsWith('word')).to.equal(true);
    expect(estimateTokens(excerpt(filler('x', 50), 'x', 100))).to.be.at.most(100);
  });
});
