import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { PasswordHash } from '../accounts/secrets.js';

/**
 * The server's state (everything but the vaults) behind one narrow, async interface: rows
 * in, rows out, and the few compare-and-set steps that must be atomic. Rules (validation,
 * hashing, token minting) live in the callers (`accounts/`, `agents/`, `auth/`, `oauth/`), so
 * a second implementation (PostgreSQL, for several server instances) writes only queries.
 * Times the caller compares with `now` are epoch milliseconds; the others are ISO strings.
 */
export interface Store {
  users: UsersStore;
  keys: KeysStore;
  deviceCursors: DeviceCursorsStore;
  agents: AgentsStore;
  sessions: SessionsStore;
  signinLinks: SigninLinksStore;
  signinFailures: SigninFailuresStore;
  oauthClients: OAuthClientsStore;
  grants: GrantsStore;
  server: ServerFactsStore;
  /** Deletes rows expired before `before`: housekeeping only, every read already filters. */
  purgeExpired(before: number): Promise<void>;
  /**
   * A value that differs whenever rows may have changed since it was last taken: at once
   * for this process's writes, within `OTHER_WRITERS_SEEN_MS` for another process's (the
   * CLI). Callers cache hot reads (keys, users) against it.
   */
  changeStamp(): string;
  close(): Promise<void>;
}

/** How stale `changeStamp` may be about another process's writes (a `quire key revoke`). */
export const OTHER_WRITERS_SEEN_MS = 100;

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
  last_used_at?: string;
}

export interface DeviceCursor {
  cursor: string;
  cursor_at: string;
}

export const AGENT_MODES = ['read', 'propose', 'write'] as const;
/** `read`: reads only; `propose`: reads and creates proposals; `write`: writes directly. */
export type AgentMode = (typeof AGENT_MODES)[number];

export interface Agent {
  name: string;
  description: string;
  mode: AgentMode;
  /** Folder prefixes with a trailing "/"; "" is the whole vault. */
  read: string[];
  write: string[];
  created_at: string;
  updated_at: string;
}

/** A signed-in browser. The cookie holds the token; only its hash is stored. */
export interface Session {
  /** Public id: names the session in commits (Quire-Credential) and flash messages. */
  id: string;
  user: string;
  hash: string;
  /** Every form of this session carries it back (synchronizer token). */
  csrf: string;
  created_at: string;
  expires_at: number;
}

export interface SigninLink {
  hash: string;
  user: string;
  expires_at: number;
}

/** One approval by one user for one client: the family every token it yields belongs to. */
export interface OAuthGrant {
  id: string;
  user: string;
  client_id: string;
  client_name: string;
  scopes: string[];
  /** The agent the user chose for this app on the consent page; absent = the user themself. */
  agent?: string;
  /** The audience of its tokens. */
  resource: string;
  created_at: string;
  last_used_at?: string;
}

export interface CodeRequest {
  client_id: string;
  client_name: string;
  user: string;
  scopes: string[];
  resource: string;
  redirect_uri: string;
  challenge: string;
  agent?: string;
}

export interface CodeRecord extends CodeRequest {
  hash: string;
  expires_at: number;
  /** Set when redeemed: a second redemption revokes this grant. */
  grant_id?: string;
}

export interface TokenRecord {
  hash: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  scopes: string[];
  expires_at: number;
  /** A refresh token that was exchanged; presenting it again revokes the family. */
  rotated?: boolean;
}

export interface UsersStore {
  list(): Promise<UserRecord[]>;
  get(name: string): Promise<UserRecord | undefined>;
  /** False when the name is taken. */
  add(user: UserRecord): Promise<boolean>;
  /** False when there is no such user. */
  setPlan(name: string, plan: string): Promise<boolean>;
  setPassword(name: string, password: PasswordHash): Promise<boolean>;
}

export interface KeysStore {
  listForUser(user: string): Promise<KeyRecord[]>;
  byId(id: string): Promise<KeyRecord | undefined>;
  byHash(hash: string): Promise<KeyRecord | undefined>;
  /** False when the user already has a key of that name. */
  add(key: KeyRecord): Promise<boolean>;
  /** The removed key, or undefined. Its device cursor goes with it. */
  remove(user: string, name: string): Promise<KeyRecord | undefined>;
  touch(id: string, at: string): Promise<void>;
}

export interface DeviceCursorsStore {
  get(keyId: string): Promise<DeviceCursor | undefined>;
  set(keyId: string, cursor: DeviceCursor): Promise<void>;
}

export interface AgentsStore {
  list(user: string): Promise<Agent[]>;
  get(user: string, name: string): Promise<Agent | undefined>;
  /** False when the user already has an agent of that name. */
  add(user: string, agent: Agent): Promise<boolean>;
  /** False when there is no such agent. */
  replace(user: string, agent: Agent): Promise<boolean>;
  remove(user: string, name: string): Promise<Agent | undefined>;
}

export interface SessionsStore {
  add(session: Session): Promise<void>;
  /** A session that has not expired at `now`. */
  byHash(hash: string, now: number): Promise<Session | undefined>;
  remove(id: string): Promise<void>;
  removeForUser(user: string): Promise<void>;
}

export interface SigninLinksStore {
  /** Stores the link and drops the user's earlier ones, at once. */
  replaceForUser(link: SigninLink): Promise<void>;
  byHash(hash: string, now: number): Promise<SigninLink | undefined>;
  /** Deletes a live link and returns it: only one caller ever gets it. */
  take(hash: string, now: number): Promise<SigninLink | undefined>;
}

/** A failure counter's live window: the failures in it, and when it ends (epoch ms). */
export interface FailureWindow {
  hits: number;
  resets_at: number;
}

/**
 * Failed sign-ins per key, in fixed windows that start at a key's first failure. Each call is
 * one statement, so concurrent requests and several processes count exactly.
 */
export interface SigninFailuresStore {
  /** Counts one failure and returns the window with it; a window ended by `now` starts over, `windowMs` long. */
  hit(key: string, now: number, windowMs: number): Promise<FailureWindow>;
  /** Takes one failure back from a live window (an attempt that turned out not to count). */
  undo(key: string, now: number): Promise<void>;
  reset(key: string): Promise<void>;
}

export interface OAuthClientsStore {
  get(clientId: string): Promise<OAuthClientInformationFull | undefined>;
  put(client: OAuthClientInformationFull): Promise<void>;
}

export interface GrantsStore {
  addCode(code: CodeRecord): Promise<void>;
  /** A code of this client that has not expired at `now` (redeemed or not). */
  code(hash: string, clientId: string, now: number): Promise<CodeRecord | undefined>;
  /** Marks an unredeemed code with the grant and stores grant and tokens; false if the code was already redeemed. */
  redeemCode(hash: string, grant: OAuthGrant, tokens: TokenRecord[]): Promise<boolean>;
  /** A token that has not expired at `now`, with its grant. */
  token(hash: string, now: number): Promise<{ token: TokenRecord; grant: OAuthGrant } | undefined>;
  /** Marks an unrotated refresh token rotated and stores its successors; false if it was already rotated. */
  rotate(hash: string, tokens: TokenRecord[]): Promise<boolean>;
  removeToken(hash: string): Promise<void>;
  /** Deletes the grant and every token of it; false when it did not exist. */
  removeGrant(id: string, user?: string): Promise<boolean>;
  /** The user's grants that still have a token live at `now`. */
  listForUser(user: string, now: number): Promise<OAuthGrant[]>;
  touch(id: string, at: string): Promise<void>;
}

/** Facts a running server records for the CLI. */
export interface ServerFactsStore {
  /** The account area's URL of the server that last started on this data. */
  accountUrl(): Promise<string | undefined>;
  recordAccountUrl(url: string): Promise<void>;
}
