import { expect } from 'chai';
import { Knowledge } from '../../../../vault-store/knowledge/knowledge.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../../helpers/temp-vault.js';

describe('search after updates empty a term', () => {
  it('answers queries for words no page holds any more, and still finds pages holding one of them', async () => {
    const { vault, pages, cleanup } = await tempVault({
      'a.md': '# Vigruldrees cedreefloun\nplain words here',
      'b.md': '# Other\nmentions cedreefloun once',
    });
    const index = tempDir();
    try {
      const knowledge = await Knowledge.open(vault, { indexDir: index.path, persistDelayMs: false });
      await pages.write(testAuthor, { path: 'a.md', content: '# Renamed\nplain words here' });
      expect(knowledge.search('Vigruldrees').results).to.deep.equal([]);
      expect(knowledge.search('vigruldrees cedreefloun ').results.map((r) => r.path)).to.deep.equal(['b.md']);
      expect(knowledge.search('"vigruldrees cedreefloun"').results).to.deep.equal([]);
      await knowledge.close();
    } finally {
      index.cleanup();
      cleanup();
    }
  });
});
