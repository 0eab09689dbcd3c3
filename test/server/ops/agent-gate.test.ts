import { expect } from 'chai';
import { AgentStore } from '../../../server/agents/agent-store.js';
import { checkWholeVault } from '../../../server/ops/agent-gate.js';
import type { Credential } from '../../../server/auth/credential.js';
import { openSqliteStore } from '../../../server/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('checkWholeVault (clone over git)', () => {
  it('lets the owner and whole-vault agents through and refuses restricted or deleted agents', async () => {
    const dir = tempDir('quire-agents-');
    const store = openSqliteStore(dir.path);
    try {
      const agents = new AgentStore(store);
      await agents.put('dana', 'all', { mode: 'read' });
      await agents.put('dana', 'proj', { mode: 'write', read: ['projects/'] });
      const as = (agent?: string): Credential => ({
        kind: 'api_key',
        user: 'dana',
        id: 'key_1',
        label: 'k',
        capabilities: new Set(['read']),
        device: false,
        ...(agent ? { agent } : {}),
      });
      const refusal = (agent: string) =>
        checkWholeVault(agents, as(agent)).then(
          () => undefined,
          (err: Error) => err,
        );
      await checkWholeVault(agents, as());
      await checkWholeVault(agents, as('all'));
      expect(await refusal('proj'))
        .to.match(/whole vault/)
        .and.have.property('code', 'AGENT_FORBIDDEN');
      expect(await refusal('gone'))
        .to.match(/no longer exists/)
        .and.have.property('code', 'AGENT_FORBIDDEN');
    } finally {
      await store.close();
      dir.cleanup();
    }
  });
});
