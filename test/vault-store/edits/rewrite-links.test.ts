import { expect } from 'chai';
import { rewriteLinks } from '../../../vault-store/edits/rewrite-links.js';

const move = { from: 'notes/Old.md', to: 'archive/New Name.md', wikiTargets: new Set(['Old', 'notes/Old']), newWikiTarget: 'New Name' };

describe('rewriteLinks', () => {
  it('rewrites only the targets of links to the moved page, keeping aliases, headings, embeds and titles', () => {
    const before =
      '[[Old]] [[ Old |shown]] ![[notes/Old#Part]] [[Other]]\n[t](Old.md#h "Title") ![i](./Old.md) [o](Other.md) [w](https://x.y/Old.md)\n';
    expect(rewriteLinks(before, 'notes/index.md', 'notes/index.md', move)).to.equal(
      '[[New Name]] [[New Name|shown]] ![[New Name#Part]] [[Other]]\n[t](../archive/New%20Name.md#h "Title") ![i](../archive/New%20Name.md) [o](Other.md) [w](https://x.y/Old.md)\n',
    );
  });

  it('leaves front-matter, fences and code spans untouched (a ``` indented 4 spaces opens no fence)', () => {
    const before = '---\nup: "[[Old]]"\n---\n````\n[[Old]]\n```\n````\n    ```\n`` [[Old]] ` `` [[Old]]\n';
    expect(rewriteLinks(before, 'notes/index.md', 'notes/index.md', move)).to.equal(
      '---\nup: "[[Old]]"\n---\n````\n[[Old]]\n```\n````\n    ```\n`` [[Old]] ` `` [[New Name]]\n',
    );
  });
});
