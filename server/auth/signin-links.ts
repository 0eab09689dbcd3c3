import { hashSecret, newToken } from '../accounts/secrets.js';
import type { Store } from '../store/store.js';

const LINK_PREFIX = 'qsl_';
export const SIGNIN_LINK_LIFETIME_MS = 24 * 60 * 60_000;

/**
 * One-time sign-in links that let a user set their password: written by the CLI (first
 * run, `quire user add`) and redeemed by the running server through the shared store.
 * Stored hashed; a link works once and for a day.
 */
export class SigninLinks {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new token for the user; earlier unused links of the same user stop working. */
  async create(user: string): Promise<string> {
    const token = newToken(LINK_PREFIX);
    await this.store.signinLinks.replaceForUser({ hash: hashSecret(token), user, expires_at: this.now() + SIGNIN_LINK_LIFETIME_MS });
    return token;
  }

  /** The user a live token is for, without using it up (showing the form). */
  async peek(token: string): Promise<string | undefined> {
    if (!token.startsWith(LINK_PREFIX)) return undefined;
    return (await this.store.signinLinks.byHash(hashSecret(token), this.now()))?.user;
  }

  /** Uses the token up: the user it was for, or undefined if unknown, expired or used. */
  async redeem(token: string): Promise<string | undefined> {
    if (!token.startsWith(LINK_PREFIX)) return undefined;
    return (await this.store.signinLinks.take(hashSecret(token), this.now()))?.user;
  }
}

/** Where a sign-in link points: the account area's welcome page. */
export function signinUrl(accountUrl: string, token: string): string {
  return `${accountUrl}/welcome?token=${encodeURIComponent(token)}`;
}
