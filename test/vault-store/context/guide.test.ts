import { expect } from 'chai';
import { buildGuide, folderCounts, guideSummary } from '../../../vault-store/context/guide.js';

const pages = [
  'Home.md',
  'projects/alpha.md',
  'projects/beta.md',
  'projects/archive/old.md',
  'capture/2026-01-01-idea.md',
  'readwise/book.md',
];
const tags: Record<string, string[]> = {
  'projects/alpha.md': ['project', 'active'],
  'projects/beta.md': ['project'],
  'Home.md': ['index'],
};

describe('the guide', () => {
  it('counts pages per folder, two levels deep, each page counted in every folder above it', () => {
    expect(folderCounts(pages)).to.deep.equal([
      ['/', 1],
      ['capture/', 1],
      ['projects/', 3],
      ['projects/archive/', 1],
      ['readwise/', 1],
    ]);
  });

  it("starts with the owner's GUIDE.md, then layout, tags, conventions, the caller and tool advice", () => {
    const guide = buildGuide({
      guideText: '# House rules\n\nWrite in English.\n',
      pages,
      tagsOf: (p) => tags[p] ?? [],
      mirrors: [{ prefix: 'readwise/', agent: 'readwise' }],
      caller: ['- You act as agent `scout`.'],
      proposeOnly: true,
    });
    expect(guide.startsWith('# House rules\n\nWrite in English.\n---\n# About this vault (generated)')).to.equal(true);
    expect(guide).to.include('- `projects/` — 3 pages\n  - `projects/archive/` — 1 page');
    expect(guide).to.include('#project (2), #active (1), #index (1)');
    expect(guide).to.include('`capture/YYYY-MM-DD-<slug>.md`');
    expect(guide).to.include('`readwise/` mirrors another tool and is written by agent `readwise`');
    expect(guide).to.include('- You act as agent `scout`.');
    expect(guide).to.include('base_hash').and.include('create_proposal');
    expect(guide).to.equal(
      buildGuide({
        guideText: '# House rules\n\nWrite in English.\n',
        pages,
        tagsOf: (p) => tags[p] ?? [],
        mirrors: [{ prefix: 'readwise/', agent: 'readwise' }],
        caller: ['- You act as agent `scout`.'],
        proposeOnly: true,
      }),
    );
  });

  it("summarises the owner's guide, or else the top folders", () => {
    expect(guideSummary({ guideText: 'Rules.\n', pages })).to.equal('Rules.');
    expect(guideSummary({ pages })).to.equal(
      '6 pages. Top folders:\n- `/` — 1 page\n- `capture/` — 1 page\n- `projects/` — 3 pages\n- `readwise/` — 1 page',
    );
  });
});
