import type { KeyRecord } from '../accounts/account-store.js';
import { API_KEY_PREFIX } from '../accounts/secrets.js';
import type { Services } from '../services.js';
import { keyCapabilities, type Credential } from './credential.js';

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/**
 * A key's credential, made once per key record: the account store hands out the same record
 * until the store changes, so a revoked or changed key never meets a credential made before.
 */
const credentials = new WeakMap<KeyRecord, Credential>();

function keyCredential(key: KeyRecord): Credential {
  return {
    kind: 'api_key',
    user: key.user,
    id: key.id,
    label: key.name,
    capabilities: keyCapabilities(key.scope),
    device: key.device,
    ...(key.agent ? { agent: key.agent } : {}),
  };
}

/** The credential for an API key, or undefined when the key is unknown or revoked. */
export async function credentialForKey(services: Services, secret: string): Promise<Credential | undefined> {
  if (!looksLikeApiKey(secret)) return undefined;
  // One indexed lookup; a key never outlives its user (the store deletes them together).
  const key = await services.accounts.findKey(secret);
  if (!key) return undefined;
  services.usage.touch(key.id);
  let credential = credentials.get(key);
  if (!credential) credentials.set(key, (credential = keyCredential(key)));
  return credential;
}

/** `Authorization: Bearer <token>` → token, else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
