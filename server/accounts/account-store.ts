import { randomBytes } from 'node:crypto';
import { QuireError } from '../../vault-store/errors.js';
import type { KeyRecord, KeyScope, Store, UserRecord } from '../store/store.js';
import { hashPassword, hashSecret, newApiKey, SCRYPT, verifyPassword, type PasswordHash, type ScryptCost } from './secrets.js';

export type { KeyRecord, KeyScope, UserRecord } from '../store/store.js';

const MAX_HOT_ROWS = 10_000;

export const USER_NAME = /^[a-z0-9][a-z0-9_-]{0,38}$/;

/**
 * Users and API keys: the rules (names, conflicts, hashing) over the shared store, which the
 * server and the CLI both write. Every API request looks up its key and its user, so both
 * are cached until the store's change stamp moves: a key revoked here stops at once, one
 * revoked by the CLI within `OTHER_WRITERS_SEEN_MS`.
 */
export class AccountStore {
  private readonly hotUsers = new HotRows<UserRecord>(() => this.store.changeStamp());
  private readonly hotKeys = new HotRows<KeyRecord>(() => this.store.changeStamp());

  /** What an unknown user's password is checked against, at the same costs as a real one. */
  private dummyHash?: PasswordHash;

  /** `passwordCost`: scrypt's costs for passwords set here (tests lower them; checks use each hash's own). */
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
    private readonly passwordCost: ScryptCost = SCRYPT,
  ) {}

  users(): Promise<UserRecord[]> {
    return this.store.users.list();
  }

  user(name: string): Promise<UserRecord | undefined> {
    return this.hotUsers.get(name, () => this.store.users.get(name));
  }

  async requireUser(name: string): Promise<UserRecord> {
    const user = await this.user(name);
    if (!user) throw new QuireError('NOT_FOUND', `No user named ${name}`);
    return user;
  }

  async addUser(name: string, plan: string): Promise<UserRecord> {
    if (!USER_NAME.test(name))
      throw new QuireError('INVALID_REQUEST', 'User names are 1-39 characters: lower-case letters, digits, "-" and "_"', { field: 'name' });
    const user: UserRecord = { name, plan, created_at: this.now().toISOString() };
    if (!(await this.store.users.add(user))) throw new QuireError('CONFLICT', `User ${name} already exists`);
    return user;
  }

  async setPlan(name: string, plan: string): Promise<void> {
    if (!(await this.store.users.setPlan(name, plan))) throw new QuireError('NOT_FOUND', `No user named ${name}`);
  }

  async setPassword(name: string, password: string): Promise<void> {
    if (!(await this.store.users.setPassword(name, await hashPassword(password, this.passwordCost))))
      throw new QuireError('NOT_FOUND', `No user named ${name}`);
  }

  async checkPassword(name: string, password: string): Promise<boolean> {
    const stored = (await this.user(name))?.password;
    // An unknown user costs the same scrypt run as a known one, so timing reveals no names.
    const ok = await verifyPassword(password, stored ?? (this.dummyHash ??= await hashPassword('quire-dummy-password', this.passwordCost)));
    return stored !== undefined && ok;
  }

  keys(user: string): Promise<KeyRecord[]> {
    return this.store.keys.listForUser(user);
  }

  /** Creates a key and returns its value: the only time it exists outside the caller's hands. */
  async createKey(input: {
    user: string;
    name: string;
    scope: KeyScope;
    device?: boolean;
    agent?: string;
  }): Promise<{ key: string; record: KeyRecord }> {
    await this.requireUser(input.user);
    if (!input.name.trim()) throw new QuireError('INVALID_REQUEST', 'A key needs a name', { field: 'name' });
    const key = newApiKey();
    const record: KeyRecord = {
      id: `key_${randomBytes(6).toString('hex')}`,
      user: input.user,
      name: input.name,
      scope: input.scope,
      device: input.device ?? false,
      ...(input.agent ? { agent: input.agent } : {}),
      hash: hashSecret(key),
      created_at: this.now().toISOString(),
    };
    if (!(await this.store.keys.add(record))) throw new QuireError('CONFLICT', `${input.user} already has a key named ${input.name}`);
    return { key, record };
  }

  async revokeKey(user: string, name: string): Promise<KeyRecord> {
    const key = await this.store.keys.remove(user, name);
    if (!key) throw new QuireError('NOT_FOUND', `${user} has no key named ${name}`);
    return key;
  }

  /**
   * The key record for a presented secret. The lookup is by the sha256 of a 256-bit secret,
   * so its timing tells nothing about stored keys an attacker could steer toward.
   */
  findKey(secret: string): Promise<KeyRecord | undefined> {
    const hash = hashSecret(secret);
    return this.hotKeys.get(hash, () => this.store.keys.byHash(hash));
  }
}

/** Rows found since the store last changed; emptied when it changes or grows past a bound. */
class HotRows<T> {
  private stamp = '';
  private readonly rows = new Map<string, T>();

  constructor(private readonly stampOf: () => string) {}

  async get(id: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const stamp = this.stampOf();
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      this.rows.clear();
    }
    const cached = this.rows.get(id);
    if (cached) return cached;
    const row = await load();
    // Unknown ids are not kept (guessing must not fill memory), nor a row read across a change.
    if (row && this.stamp === stamp && this.stampOf() === stamp) {
      if (this.rows.size >= MAX_HOT_ROWS) this.rows.clear();
      this.rows.set(id, row);
    }
    return row;
  }
}
