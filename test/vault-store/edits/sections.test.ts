import { expect } from 'chai';
import { QuireError } from '../../../vault-store/errors.js';
import { findSection } from '../../../vault-store/edits/sections.js';
import { appendText, replaceSection } from '../../../vault-store/edits/text-edits.js';

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return (err as QuireError).code;
  }
  return undefined;
};

describe('sections', () => {
  it('finds a heading by the scanner\'s rules: "# C#" is "C#", a closing run after a space is dropped', () => {
    const content = '# C#\nsharp\n## Goals ##\ngoal\n# Next\n';
    expect(content.slice(findSection(content, 'c#').bodyStart, findSection(content, 'c#').end)).to.equal('sharp\n## Goals ##\ngoal\n');
    expect(findSection(content, '## goals')).to.deep.equal({ start: 11, bodyStart: 23, end: 28, level: 2 });
  });

  it('ignores headings in front-matter, in a fence until a long-enough run closes it, and in 4-space code', () => {
    const content = '---\n# Goals: yaml comment\n---\n````\n# Goals\n```\n````\n    # Goals\n## Goals\nreal\n';
    const section = findSection(content, 'Goals');
    expect(content.slice(section.start, section.end)).to.equal('## Goals\nreal\n');
  });

  it('ends a section at the next heading of the same or a higher level, bare ones included', () => {
    expect(replaceSection('# A\n## B\nold\n### C\nin\n##\nafter\n', 'B', 'new')).to.equal('# A\n## B\nnew\n\n##\nafter\n');
    expect(appendText('# A\n## B\nold\n\n# D\n', 'more', 'b')).to.equal('# A\n## B\nold\nmore\n\n# D\n');
  });

  it('refuses a heading that is missing or appears twice, changing nothing', () => {
    expect(codeOf(() => findSection('# A\n', 'B'))).to.equal('NOT_FOUND');
    expect(codeOf(() => findSection('# A\n## A\n', 'A'))).to.equal('INVALID_REQUEST');
    expect(codeOf(() => findSection('##\n', ''))).to.equal('NOT_FOUND');
  });
});
