import { expect } from 'chai';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { tempVault, testAuthor } from '../helpers/temp-vault.js';

describe('updated_at', () => {
  it('is the working file\'s mtime for pages untouched since open, and the commit time after a write', async () => {
    const { dir, cleanup } = await tempVault({ 'a.md': 'one' });
    try {
      const past = new Date('2025-03-04T05:06:07.000Z');
      utimesSync(join(dir, 'a.md'), past, past);
      const pages = new Pages(await Vault.open(dir));
      expect((await pages.read('a.md')).updated_at).to.equal(past.toISOString());
      expect((await pages.list({ limit: 10 })).pages[0].updated_at).to.equal(past.toISOString());
      const { page, commit } = await pages.write(testAuthor, { path: 'a.md', content: 'two' });
      expect(commit).to.be.a('string');
      expect(page.updated_at).to.not.equal(past.toISOString());
      expect((await pages.read('a.md')).updated_at).to.equal(page.updated_at);
      const same = await pages.write(testAuthor, { path: 'a.md', content: 'two' });
      expect(same.page.updated_at).to.equal(page.updated_at);
    } finally {
      cleanup();
    }
  });
});
