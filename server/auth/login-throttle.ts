import { ipKeyGenerator } from 'express-rate-limit';
import type { AccountStore } from '../accounts/account-store.js';
import type { SigninFailuresStore } from '../store/store.js';

export interface ThrottleLimits {
  /** Failed sign-ins per account name from one address, per window. */
  perAccountAddress: number;
  /** Failed sign-ins from one address, whatever the names, per window. */
  perAddress: number;
  windowMs: number;
}

export const SIGNIN_LIMITS: ThrottleLimits = { perAccountAddress: 5, perAddress: 20, windowMs: 15 * 60_000 };

const WRONG = 'Wrong username or password.';

export type SignInResult =
  { ok: true; user: string } | { ok: false; username: string; status: 401 | 429; message: string; retryAfter?: number };

function tooMany(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/**
 * The one password check of every sign-in form (the account area's and the OAuth flow's),
 * so they share one budget. Failures count per (account name, address) and per address:
 * guesses at an account are bounded however many forms are opened, one address cannot
 * spray names, and nobody elsewhere can lock the owner out, whose address keeps its own
 * budget. Names count whether or not the account exists, so being throttled reveals nothing.
 * The counts are in the store, so a restart (or a second process) does not reset them.
 */
export class LoginThrottle {
  constructor(
    private readonly accounts: Pick<AccountStore, 'checkPassword'>,
    private readonly failures: SigninFailuresStore,
    private readonly limits: ThrottleLimits = SIGNIN_LIMITS,
  ) {}

  /** `address` is `req.ip`: the real client only when `QUIRE_TRUST_PROXY` names the proxy. */
  async signIn(name: string, password: string, address: string | undefined): Promise<SignInResult> {
    const username = name.trim().toLowerCase().slice(0, 64);
    // IPv6 counts by /56 network: one host holds many addresses.
    const from = ipKeyGenerator(address ?? 'unknown');
    const keys = { pair: `${from} ${username}`, address: from };
    // Counted before the (slow) password check, so parallel guesses cannot all slip through;
    // the address first, so a throttled address adds no entry per name it tries.
    const all = await this.failures.hit(keys.address, Date.now(), this.limits.windowMs);
    if (all.hits > this.limits.perAddress) return this.throttled(username, all.resets_at, keys.address);
    const pair = await this.failures.hit(keys.pair, Date.now(), this.limits.windowMs);
    if (pair.hits > this.limits.perAccountAddress) return this.throttled(username, pair.resets_at, keys.address, keys.pair);
    if (!(await this.accounts.checkPassword(username, password))) return { ok: false, username, status: 401, message: WRONG };
    // A right password clears this account's count from this address; it was no failure either.
    await Promise.all([this.failures.reset(keys.pair), this.uncount(keys.address)]);
    return { ok: true, user: username };
  }

  /** A refused attempt is no failure: its hits are taken back. */
  private async throttled(username: string, resetsAt: number, ...counted: string[]): Promise<SignInResult> {
    await this.uncount(...counted);
    const retryAfter = Math.max(1, Math.ceil((resetsAt - Date.now()) / 1000));
    return { ok: false, username, status: 429, message: tooMany(retryAfter), retryAfter };
  }

  private async uncount(...keys: string[]): Promise<void> {
    const now = Date.now();
    await Promise.all(keys.map((key) => this.failures.undo(key, now)));
  }
}
