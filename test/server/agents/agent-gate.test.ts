import { expect } from 'chai';
import { AgentStore } from '../../../server/agents/agent-store.js';
import { checkWholeVault } from '../../../server/agents/agent-gate.js';
import type { Credential } from '../../../server/auth/credential.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('checkWholeVault (clone over git)', () => {
  it('lets the owner and whole-vault agents through and refuses restricted or deleted agents', async () => {
    const dir = tempDir('quire-agents-');
    try {
      const agents = new AgentStore(dir.path);
      await agents.put('dana', 'all', { mode: 'read' });
      await agents.put('dana', 'proj', { mode: 'write', read: ['projects/'] });
      const as = (agent?: string): Credential => ({ kind: 'api_key', user: 'dana', id: 'key_1', label: 'k', capabilities: new Set(['read']), device: false, ...(agent ? { agent } : {}) });
      expect(() => checkWholeVault(agents, as())).not.to.throw();
      expect(() => checkWholeVault(agents, as('all'))).not.to.throw();
      expect(() => checkWholeVault(agents, as('proj'))).to.throw(/whole vault/).with.property('code', 'AGENT_FORBIDDEN');
      expect(() => checkWholeVault(agents, as('gone'))).to.throw(/no longer exists/).with.property('code', 'AGENT_FORBIDDEN');
    } finally {
      dir.cleanup();
    }
  });
});
