import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

export const API_KEY_PREFIX = 'quire_';

/** `quire_` + 256 random bits, base64url: copy-paste safe and recognisable in leaks. */
export function newApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Opaque random token with a kind prefix (OAuth tokens, sign-in links, sessions). */
export function newToken(prefix: string, bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/**
 * Keys are high-entropy, so a fast hash is enough; only this hash is ever stored. Every API
 * request hashes its key: the one-shot `hash` costs a third of a `Hash` object's.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface PasswordHash {
  algo: 'scrypt';
  salt: string;
  hash: string;
  N: number;
  r: number;
  p: number;
}

/** scrypt's costs, stored with each hash: a hash made at other costs still verifies. */
export type ScryptCost = Pick<PasswordHash, 'N' | 'r' | 'p'>;

export const SCRYPT: ScryptCost = { N: 16384, r: 8, p: 1 };

export async function hashPassword(password: string, cost: ScryptCost = SCRYPT): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, { ...cost, maxmem: 64 * 1024 * 1024 });
  return { algo: 'scrypt', salt: salt.toString('hex'), hash: hash.toString('hex'), ...cost };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const hash = await scryptAsync(password, Buffer.from(stored.salt, 'hex'), 32, {
    N: stored.N,
    r: stored.r,
    p: stored.p,
    maxmem: 64 * 1024 * 1024,
  });
  return sameHash(hash.toString('hex'), stored.hash);
}
