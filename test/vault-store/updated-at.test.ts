import { expect } from 'chai';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { gitIn, tempVault, testAuthor } from '../helpers/temp-vault.js';

describe('updated_at', () => {
  it("is the working file's mtime for pages untouched since open, and the commit time after a write", async () => {
    const { dir, cleanup } = await tempVault({ 'a.md': 'one' });
    try {
      const past = new Date('2025-03-04T05:06:07.000Z');
      utimesSync(join(dir, 'a.md'), past, past);
      const pages = new Pages(await Vault.open(dir));
      expect((await pages.read('a.md')).updated_at).to.equal(past.toISOString());
      expect((await pages.list({ limit: 10 })).pages[0].updated_at).to.equal(past.toISOString());
      const { page, commit } = await pages.write(testAuthor, { path: 'a.md', content: 'two' });
      // git keeps a commit's time in whole seconds; updated_at is the same instant, to the millisecond.
      const [committed, time] = gitIn(dir, 'log', '-1', '--format=%H %ct', '--', 'a.md').trim().split(' ');
      expect(commit).to.equal(committed);
      expect(Math.floor(Date.parse(page.updated_at) / 1000)).to.equal(Number(time));
      expect((await pages.read('a.md')).updated_at).to.equal(page.updated_at);
      const same = await pages.write(testAuthor, { path: 'a.md', content: 'two' });
      expect(same.page.updated_at).to.equal(page.updated_at);
      expect(gitIn(dir, 'log', '-1', '--format=%H', '--', 'a.md').trim(), 'an unchanged write makes no commit').to.equal(commit);
    } finally {
      cleanup();
    }
  });
});
