import { expect } from 'chai';
import type { Log } from '../../vault-store/log.js';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { tempVault, testAuthor } from '../helpers/temp-vault.js';

/** A `Log` that keeps its lines, as the server's logger would write them. */
function recordingLog(): Log & { lines: { level: string; fields: object; message: string }[] } {
  const lines: { level: string; fields: object; message: string }[] = [];
  return {
    lines,
    warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
    error: (fields, message) => void lines.push({ level: 'error', fields, message }),
  };
}

describe('vault-store logging', () => {
  it('reports a failing commit listener to the log given at open, and the write still lands', async () => {
    const temp = await tempVault();
    try {
      const log = recordingLog();
      const vault = await Vault.open(temp.dir, { log });
      vault.onCommit(() => {
        throw new Error('index exploded');
      });
      await new Pages(vault).write(testAuthor, { path: 'a.md', content: 'a' });
      // The commit is durable whatever derived data does after it.
      expect(vault.head).to.not.equal(temp.vault.head);
      expect(log.lines).to.deep.equal([
        { level: 'error', fields: { commit: vault.head, err: 'index exploded' }, message: 'commit listener failed' },
      ]);
    } finally {
      temp.cleanup();
    }
  });
});
