import type { Request } from 'express';
import { join } from 'node:path';
import { isQuireError, QuireError } from '../../vault-store/errors.js';
import type { Workspace } from '../../vault-store/workspace.js';
import { credentialForKey, looksLikeApiKey } from '../auth/api-key.js';
import { gitClone } from '../ops/clone.js';
import { invoke, type Invocation } from '../ops/invoke.js';
import type { AnyOperation } from '../ops/operation.js';
import { gitPush } from '../ops/push.js';
import type { Services } from '../services.js';
import { gitKey } from './credentials.js';
import type { CloneTarget, PushTarget } from './router.js';
import { removeLeftoverSpools } from './spool-body.js';

/** Authenticates a git client with an API key and runs `op` through `invoke` as that key. */
async function invokeAsGitClient(services: Services, req: Request, op: AnyOperation): Promise<Invocation> {
  const key = gitKey(req.headers.authorization);
  const credential = key && looksLikeApiKey(key) ? await credentialForKey(services, key) : undefined;
  if (!credential) throw new QuireError('UNAUTHENTICATED', 'Use an API key as the password (any user name)');
  req.credential = credential;
  return invoke(services, op, credential, 'rest', {});
}

/** Authenticates a git client with an API key and names the caller's own repository. */
export function cloneResolver(services: Services): (req: Request) => Promise<CloneTarget> {
  return async (req) => {
    const { result, rate } = await invokeAsGitClient(services, req, gitClone as unknown as AnyOperation);
    return { ...(result as { gitdir: string }), rate };
  };
}

/**
 * Authenticates a pushing git client (a write key of the owner) and hands over the caller's own
 * vault. Push bodies wait in `<data>/tmp/`; made once at start-up, which also clears what a
 * crash mid-push left there.
 */
export function pushResolver(services: Services): (req: Request) => Promise<PushTarget> {
  const spoolDir = join(services.config.dataDir, 'tmp');
  removeLeftoverSpools(spoolDir);
  return async (req) => {
    try {
      const { result, rate } = await invokeAsGitClient(services, req, gitPush as unknown as AnyOperation);
      const { workspace, maxBytes } = result as { workspace: Workspace; maxBytes: number };
      // The vault may be closed while the body spools: the push takes the user's workspace (and holds it) when it runs.
      const user = req.credential!.user;
      const exclusive = <T>(receive: () => Promise<T>) => services.vaults.use(user, (vault) => vault.receivePack(receive));
      return { gitdir: workspace.gitdir, maxBytes, spoolDir, rate, exclusive };
    } catch (err) {
      if (isQuireError(err) && err.code === 'INSUFFICIENT_SCOPE') {
        throw new QuireError(
          'INSUFFICIENT_SCOPE',
          'Pushing needs an API key with the write scope; this key may only read (clone and fetch)',
          err.details,
        );
      }
      throw err;
    }
  };
}
