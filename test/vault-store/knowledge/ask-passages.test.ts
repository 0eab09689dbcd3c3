import { expect } from 'chai';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault } from '../../helpers/temp-vault.js';

/** Passages for ask come from prose, read with the one markdown scanner. */
describe('ask passages', () => {
  it('quotes prose and heading text, never fenced code, even code with blank lines inside', async () => {
    const v = await tempVault({
      'notes/Compost.md': [
        '# Compost heap',
        '',
        'Turn the compost heap weekly so it stays warm.',
        '',
        '```sh',
        'echo compost heap',
        '',
        'echo compost heap again, after a blank line inside the fence',
        '```',
        '',
        '## Compost heap problems',
        '',
        'A wet compost heap smells; add dry leaves.',
      ].join('\n'),
    });
    const index = tempDir('quire-index-');
    const knowledge = await Knowledge.open(v.vault, { indexDir: index.path, persistDelayMs: false });
    try {
      const excerpts = knowledge.ask({ question: 'compost heap' }).citations.map((c) => c.excerpt);
      expect(excerpts).to.include('Turn the compost heap weekly so it stays warm.');
      expect(excerpts.some((e) => e.includes('#'))).to.equal(false);
      // Asked in the code's own words, the answer still quotes no code.
      const fromCode = knowledge.passages({ question: 'echo again after a blank line inside the fence' }).passages.map((p) => p.text);
      expect(fromCode.filter((t) => t.includes('echo'))).to.deep.equal([]);
      const passages = knowledge.passages({ question: 'compost heap problems' }).passages.map((p) => p.text);
      expect(passages).to.include('Compost heap problems');
    } finally {
      await knowledge.close();
      v.cleanup();
      index.cleanup();
    }
  });
});
