import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { QuireError } from '../../vault-store/errors.js';
import { JsonFile } from './json-file.js';
import { hashPassword, hashSecret, newApiKey, sameHash, verifyPassword, type PasswordHash } from './secrets.js';

export type KeyScope = 'read' | 'write';

export interface UserRecord {
  name: string;
  plan: string;
  created_at: string;
  password?: PasswordHash;
}

export interface KeyRecord {
  id: string;
  user: string;
  name: string;
  scope: KeyScope;
  device: boolean;
  agent?: string;
  /** sha256 of the key; the key itself is shown once and never stored. */
  hash: string;
  created_at: string;
}

interface AccountsDoc {
  version: 1;
  users: Record<string, UserRecord>;
  keys: KeyRecord[];
}

let DUMMY_HASH: PasswordHash | undefined;

export const USER_NAME = /^[a-z0-9][a-z0-9_-]{0,38}$/;

/**
 * Users and API keys in `<data>/accounts.json`, shared by the server and the CLI. Every
 * read sees the latest file, so keys created or revoked by the CLI apply at once.
 */
export class AccountStore {
  private readonly file: JsonFile<AccountsDoc>;

  constructor(dataDir: string, private readonly now: () => Date = () => new Date()) {
    this.file = new JsonFile<AccountsDoc>(join(dataDir, 'accounts.json'), () => ({ version: 1, users: {}, keys: [] }));
  }

  users(): UserRecord[] {
    return Object.values(this.file.read().users).sort((a, b) => a.name.localeCompare(b.name));
  }

  user(name: string): UserRecord | undefined {
    return this.file.read().users[name];
  }

  requireUser(name: string): UserRecord {
    const user = this.user(name);
    if (!user) throw new QuireError('NOT_FOUND', `No user named ${name}`);
    return user;
  }

  async addUser(name: string, plan: string): Promise<UserRecord> {
    if (!USER_NAME.test(name)) throw new QuireError('INVALID_REQUEST', 'User names are 1-39 characters: lower-case letters, digits, "-" and "_"', { field: 'name' });
    return this.file.update((doc) => {
      if (doc.users[name]) throw new QuireError('CONFLICT', `User ${name} already exists`);
      const user: UserRecord = { name, plan, created_at: this.now().toISOString() };
      doc.users[name] = user;
      return user;
    });
  }

  async setPlan(name: string, plan: string): Promise<void> {
    await this.file.update((doc) => {
      if (!doc.users[name]) throw new QuireError('NOT_FOUND', `No user named ${name}`);
      doc.users[name].plan = plan;
    });
  }

  async setPassword(name: string, password: string): Promise<void> {
    const hashed = await hashPassword(password);
    await this.file.update((doc) => {
      if (!doc.users[name]) throw new QuireError('NOT_FOUND', `No user named ${name}`);
      doc.users[name].password = hashed;
    });
  }

  async checkPassword(name: string, password: string): Promise<boolean> {
    const stored = this.user(name)?.password;
    // An unknown user costs the same scrypt run as a known one, so timing reveals no names.
    const ok = await verifyPassword(password, stored ?? (DUMMY_HASH ??= await hashPassword('quire-dummy-password')));
    return stored !== undefined && ok;
  }

  keys(user: string): KeyRecord[] {
    return this.file.read().keys.filter((k) => k.user === user);
  }

  /** Creates a key and returns its value: the only time it exists outside the caller's hands. */
  async createKey(input: { user: string; name: string; scope: KeyScope; device?: boolean; agent?: string }): Promise<{ key: string; record: KeyRecord }> {
    const key = newApiKey();
    const record = await this.file.update((doc) => {
      if (!doc.users[input.user]) throw new QuireError('NOT_FOUND', `No user named ${input.user}`);
      if (!input.name.trim()) throw new QuireError('INVALID_REQUEST', 'A key needs a name', { field: 'name' });
      if (doc.keys.some((k) => k.user === input.user && k.name === input.name)) {
        throw new QuireError('CONFLICT', `${input.user} already has a key named ${input.name}`);
      }
      const rec: KeyRecord = {
        id: `key_${randomBytes(6).toString('hex')}`,
        user: input.user,
        name: input.name,
        scope: input.scope,
        device: input.device ?? false,
        ...(input.agent ? { agent: input.agent } : {}),
        hash: hashSecret(key),
        created_at: this.now().toISOString(),
      };
      doc.keys.push(rec);
      return rec;
    });
    return { key, record };
  }

  async revokeKey(user: string, name: string): Promise<KeyRecord> {
    return this.file.update((doc) => {
      const index = doc.keys.findIndex((k) => k.user === user && k.name === name);
      if (index < 0) throw new QuireError('NOT_FOUND', `${user} has no key named ${name}`);
      return doc.keys.splice(index, 1)[0];
    });
  }

  /** The key record for a presented secret, compared in constant time. */
  findKey(secret: string): KeyRecord | undefined {
    const hash = hashSecret(secret);
    return this.file.read().keys.find((k) => sameHash(k.hash, hash));
  }
}
