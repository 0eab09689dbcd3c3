import type { Request } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { credentialForKey, looksLikeApiKey } from '../auth/api-key.js';
import { gitClone } from '../ops/clone.js';
import { invoke } from '../ops/invoke.js';
import type { AnyOperation } from '../ops/operation.js';
import type { Services } from '../services.js';
import { gitKey } from './credentials.js';

/** Authenticates a git client with an API key and names the caller's own repository. */
export function cloneResolver(services: Services): (req: Request) => Promise<{ gitdir: string }> {
  return async (req) => {
    const key = gitKey(req.headers.authorization);
    const credential = key && looksLikeApiKey(key) ? await credentialForKey(services, key) : undefined;
    if (!credential) throw new QuireError('UNAUTHENTICATED', 'Use an API key as the password (any user name)');
    req.credential = credential;
    const { result } = await invoke(services, gitClone as unknown as AnyOperation, credential, 'rest', {});
    return result as { gitdir: string };
  };
}
