import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PageEmbeddings, type Embed } from '../../../vault-store/knowledge/embeddings.js';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../../vault-store/pages.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { topicVector } from '../../helpers/topic-model.js';

function topicModel(calls: string[][]): Embed {
  return async (texts) => {
    calls.push(texts);
    return texts.map((text) => Float32Array.from(topicVector(text)));
  };
}

describe('page embeddings', () => {
  it('embeds every page once, ranks by meaning, persists by model, and embeds only what changed', async () => {
    const ctx = await tempVault({
      'garden/compost.md': '# Compost\nTurn the pile often.',
      'garden/beds.md': '# Raised beds\nCedar boards last.',
      'kitchen/bread.md': '# Sourdough\nFeed the starter.',
    });
    const indexDir = tempDir('quire-index-');
    const file = join(indexDir.path, 'embeddings.bin');
    const knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    try {
      const calls: string[][] = [];
      const embeddings = await PageEmbeddings.open(file, 'm1', topicModel(calls), () => knowledge.index);
      expect(embeddings.coverage()).to.deep.equal({ embedded: 0, pending: 3 });
      await embeddings.refresh();
      expect(embeddings.coverage()).to.deep.equal({ embedded: 3, pending: 0 });
      expect(embeddings.coverage((p) => p.startsWith('garden/'))).to.deep.equal({ embedded: 2, pending: 0 });
      // "loaf" is in no page: only meaning finds the bread page.
      expect((await embeddings.similar({ text: 'a loaf' }, 1)).map((h) => h.path)).to.deep.equal(['kitchen/bread.md']);
      const byPage = await embeddings.similar({ path: 'garden/compost.md' }, 5, (p) => p !== 'garden/beds.md');
      expect(byPage.map((h) => h.path)).to.deep.equal(['kitchen/bread.md']);

      await new Pages(ctx.vault).write(testAuthor, { path: 'garden/compost.md', content: '# Compost\nMulch the pile.' });
      expect(embeddings.coverage().pending).to.equal(1);
      const before = calls.length;
      await embeddings.refresh();
      expect(calls.slice(before).flat()).to.deep.equal(['# Compost\nMulch the pile.']);
      await embeddings.close();

      const again = await PageEmbeddings.open(file, 'm1', topicModel(calls), () => knowledge.index);
      expect(again.coverage()).to.deep.equal({ embedded: 3, pending: 0 });
      expect((await PageEmbeddings.open(file, 'm2', topicModel(calls), () => knowledge.index)).coverage().pending).to.equal(3);
      writeFileSync(file, 'not a vector file');
      expect((await PageEmbeddings.open(file, 'm1', topicModel(calls), () => knowledge.index)).coverage().pending).to.equal(3);
    } finally {
      await knowledge.close();
      ctx.cleanup();
      indexDir.cleanup();
    }
  });

  it('keeps what was embedded when the model fails, says why, and resumes on the next refresh', async () => {
    const ctx = await tempVault();
    // Seventy pages (more than one batch of 64) in one commit: a write each took seconds.
    await ctx.vault.mutate(testAuthor, 'Seed', () =>
      Array.from({ length: 70 }, (_, i) => ({ path: `n/p${i}.md`, content: new TextEncoder().encode(`# P${i}\nbread ${i}`) })),
    );
    const indexDir = tempDir('quire-index-');
    const knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    try {
      let batches = 0;
      const model = topicModel([]);
      const flaky: Embed = async (texts) => {
        if (++batches === 2) throw new Error('endpoint down');
        return model(texts);
      };
      const embeddings = await PageEmbeddings.open(join(indexDir.path, 'e.bin'), 'm', flaky, () => knowledge.index);
      await embeddings.refresh();
      expect(embeddings.lastError).to.equal('endpoint down');
      expect(embeddings.coverage()).to.deep.equal({ embedded: 64, pending: 6 });
      await embeddings.refresh();
      expect(embeddings.lastError).to.equal(undefined);
      expect(embeddings.coverage()).to.deep.equal({ embedded: 70, pending: 0 });
    } finally {
      await knowledge.close();
      ctx.cleanup();
      indexDir.cleanup();
    }
  });
});
