import { z } from 'zod';
import { DEFAULT_TIMING } from '../../vault-store/timing.js';
import { boolean, httpUrl, integer, oneOf, origins, trustProxy } from './values.js';

/** What `.env.example` says about a variable; `default` is also the value used when it is unset. */
export interface VariableDoc {
  doc: string;
  default?: string;
  /** Shown instead of a default when the default is derived from other variables or off. */
  example?: string;
}

/** A variable: its parser, applied to the default when unset, and its documentation. */
function variable<T>(schema: z.ZodType<T, string>, doc: VariableDoc & { default: string }): z.ZodType<T, string | undefined>;
function variable<T>(schema: z.ZodType<T, string>, doc: VariableDoc): z.ZodType<T | undefined, string | undefined>;
function variable<T>(schema: z.ZodType<T, string>, doc: VariableDoc): z.ZodType<T | undefined, string | undefined> {
  return (doc.default === undefined ? schema.optional() : schema.prefault(doc.default)).meta({ ...doc });
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every variable the server reads, in the order `.env.example` lists them. Flags to
 * `quire serve` (--data, --host, --port, --base-url) win over their variables.
 */
export const envSchema = z.object({
  QUIRE_DATA: variable(z.string(), {
    default: './data',
    doc: "Where accounts, keys and the users' vaults live (git repos under vaults/<user>/).",
  }),
  HOST: variable(z.string(), {
    default: '127.0.0.1',
    doc: 'Address to listen on. Keep 127.0.0.1 behind a reverse proxy; 0.0.0.0 to listen on all interfaces.',
  }),
  PORT: variable(integer(0, 65535), { default: '8787', doc: 'Port to listen on.' }),
  QUIRE_TRUST_PROXY: variable(trustProxy(), {
    example: 'loopback',
    doc: "Behind a reverse proxy: which proxies to believe about the client's address (X-Forwarded-For), as express's `trust proxy` takes it: true (any), a hop count (1), or a comma list of addresses, subnets and loopback/linklocal/uniquelocal. Off by default, and then every client behind a proxy shares the proxy's address for the sign-in throttle and the OAuth registration limit. Never set it when clients reach the server directly: they could then claim any address.",
  }),
  QUIRE_BASE_URL: variable(httpUrl(), {
    example: 'https://quire.example.com',
    doc: 'Public URL clients use to reach this server (no trailing slash). Used in OAuth metadata, the MCP resource identifier and printed links. Defaults to http://HOST:PORT.',
  }),
  QUIRE_AUTH_URL: variable(httpUrl(), {
    example: 'https://quire.example.com',
    doc: 'Where the browser OAuth pages live, if not on the base URL.',
  }),
  QUIRE_ACCOUNT_URL: variable(httpUrl(), {
    example: 'https://quire.example.com/account',
    doc: 'The account area. Defaults to {QUIRE_BASE_URL}/account.',
  }),
  QUIRE_OAUTH_REGISTRATIONS_PER_HOUR: variable(integer(1, 1_000_000), {
    default: '100',
    doc: "OAuth client registrations (POST /oauth/register) one address may make per hour. Only successful ones count (a refused registration does not). Some clients (Claude) register afresh on every new connection, so leave room for a person's many reconnects a day. Behind a reverse proxy the address is the client's only with QUIRE_TRUST_PROXY set.",
  }),
  QUIRE_MCP_ALLOWED_ORIGINS: variable(origins(), {
    example: 'http://localhost:6274',
    doc: "Browser origins (scheme://host[:port], comma-separated) whose pages may call /mcp: the MCP Inspector in direct mode, a web IDE. They pass the DNS-rebinding guard and get CORS headers on /mcp (the OAuth metadata, registration, token and revocation endpoints answer every origin). Empty by default (only the base URL's own origin). * is refused: it would let every web page the user visits call the server from their browser, which is what the guard is there to stop.",
  }),
  QUIRE_PLANS_FILE: variable(z.string(), {
    example: './plans.json',
    doc: 'JSON file whose entries replace or add plans by name: { "team": { "rest": true, "mcp": true, "push_mb": 512, "limits": { "sync": 600, "read": 600, "write": 120, "expensive": 20 } } }. limits are requests per minute; push_mb (optional) is the largest git push in MiB, by default the built-in plan\'s of that name (free 16, personal 256, pro 1024), else personal\'s.',
  }),
  QUIRE_MAX_PAGE_BYTES: variable(integer(1024, 64 * 1024 * 1024), {
    default: String(1024 * 1024),
    doc: 'Largest page accepted, in bytes (1 MiB).',
  }),
  QUIRE_LOG_LEVEL: variable(oneOf(LOG_LEVELS), {
    default: 'info',
    doc: `Least severe log level written to stdout as JSON lines (${LOG_LEVELS.join(', ')}). info writes one line per request.`,
  }),
  QUIRE_WATCH: variable(boolean(), {
    default: 'true',
    doc: 'Watch vault folders and commit edits made directly in them (Obsidian, an editor, a sync tool). Set to false for API-only deployments (no folder watches at all).',
  }),
  QUIRE_WATCH_SETTLE_MS: variable(integer(0, 60_000), {
    default: String(DEFAULT_TIMING.watchQuietMs),
    doc: 'Quiet time after the last change in a vault folder before committing it: quick edits become one commit.',
  }),
  QUIRE_WATCH_STABLE_MS: variable(integer(0, 60_000), {
    default: String(DEFAULT_TIMING.watchStabilityMs),
    doc: 'A changed file is committed only once its modification time is at least this old (it has settled).',
  }),
  QUIRE_WATCH_IDLE_MS: variable(integer(1000, 24 * 60 * 60_000), {
    default: String(DEFAULT_TIMING.watchIdleMs),
    doc: 'A vault nobody used for this long stops being watched (its folder watches are freed); the next use scans it for edits made meanwhile.',
  }),
  QUIRE_GIT_LOCK_WAIT_MS: variable(integer(0, 60_000), {
    default: String(DEFAULT_TIMING.gitLockWaitMs),
    doc: 'How long a write waits for a lock a git command holds in a vault folder (.git/index.lock, the branch lock) before answering 503 VAULT_BUSY.',
  }),
  QUIRE_INDEX_PERSIST_MS: variable(integer(0, 60 * 60_000), {
    default: String(DEFAULT_TIMING.indexPersistDelayMs),
    doc: 'Time from a write to the save of the search index that holds it (data/index/<user>/knowledge/), and on shutdown. Under a steady stream of writes a save follows the last one by at least 20 times what it took, and at most 10 times this value.',
  }),
  QUIRE_MEMORY_BUDGET_MB: variable(integer(1, 16 * 1024 * 1024), {
    example: '4096',
    doc: "Memory the server process should stay within, in MiB: its own baseline (measured at start, before any vault is loaded) plus the loaded vaults' estimated memory (each vault's search index, link graph, page metadata and file list, as `vault_health` reports it). Once the vaults' part passes 85% of what the budget leaves after the baseline (the rest is kept for vaults opening, index saves and garbage), the vaults used least recently and not in use are closed (their queued writes land and their index is saved first) and reopened from disk on their next request. One vault larger than the budget is still served, alone. Defaults to a quarter of the memory this process may use (its cgroup limit, else the machine's RAM), leaving room for garbage not yet collected, requests in flight and a vault's peak while it saves its index. A first index build or rebuild of a vault of 2,000 pages or more runs in a child process of its own, whose memory is outside this budget.",
  }),
  QUIRE_VAULT_IDLE_MS: variable(integer(0, 7 * 24 * 60 * 60_000), {
    default: String(15 * 60_000),
    doc: 'A vault nobody used for this long is closed (index saved, file watcher stopped) and reopened on its next request; 0 keeps vaults loaded until the memory budget needs the room.',
  }),
  QUIRE_MCP_SESSION_IDLE_MS: variable(integer(1000, 24 * 60 * 60_000), {
    default: String(30 * 60_000),
    doc: 'An MCP session (Mcp-Session-Id) unused for this long ends, with its subscriptions and log level; the client starts a new one. A session with an open notification stream is not idle.',
  }),
  QUIRE_MCP_SESSIONS_PER_USER: variable(integer(1, 10_000), {
    default: '32',
    doc: "MCP sessions one user may hold at once; a new one ends that user's least recently used.",
  }),
  QUIRE_MCP_SESSIONS_MAX: variable(integer(1, 1_000_000), {
    default: '10000',
    doc: 'MCP sessions the server holds at once, all users together; a new one ends the least recently used.',
  }),
  QUIRE_LIVE_CONNECTIONS_PER_USER: variable(integer(1, 10_000), {
    default: '8',
    doc: "Live change connections one user may hold at once: GET /vault/events streams and GET /vault/changes?wait= long-polls together. A new one closes that user's oldest (a stream ends, and its client reconnects with Last-Event-ID; a long-poll answers at once with what it has).",
  }),
  QUIRE_EVENTS_HEARTBEAT_MS: variable(integer(1000, 5 * 60_000), {
    default: '15000',
    doc: 'A GET /vault/events stream sends a comment line this often when no change came, so proxies and clients keep a quiet stream open and a client that went away is noticed.',
  }),
  QUIRE_EVENTS_MAX_MS: variable(integer(1000, 24 * 60 * 60_000), {
    default: String(10 * 60_000),
    doc: 'A GET /vault/events stream ends after this long; the client reconnects with Last-Event-ID and misses nothing. (A revoked key ends it at once.)',
  }),
  QUIRE_LLM_BASE_URL: variable(httpUrl(), {
    example: 'https://api.openai.com/v1',
    doc: 'Optional OpenAI-compatible chat endpoint for generated answers in `ask` (without it, answers are extractive: passages from your pages, cited). Set together with QUIRE_LLM_MODEL.',
  }),
  QUIRE_LLM_MODEL: variable(z.string(), { example: 'gpt-4o-mini', doc: 'The chat model for `ask`.' }),
  QUIRE_LLM_API_KEY: variable(z.string(), { example: '', doc: 'Key for the chat endpoint, if it needs one.' }),
  QUIRE_EMBEDDINGS_MODEL: variable(z.string(), {
    example: 'text-embedding-3-small',
    doc: 'Optional OpenAI-compatible embeddings model for `similar` (pages alike in meaning, not just in words). Pages are embedded in the background, once per version, and kept under data/index/<user>/ (about 6 KB a page for 1536 dimensions).',
  }),
  QUIRE_EMBEDDINGS_BASE_URL: variable(httpUrl(), {
    example: 'https://api.openai.com/v1',
    doc: 'The embeddings endpoint. Defaults to QUIRE_LLM_BASE_URL.',
  }),
  QUIRE_EMBEDDINGS_API_KEY: variable(z.string(), { example: '', doc: 'Key for the embeddings endpoint. Defaults to QUIRE_LLM_API_KEY.' }),
});

export type Env = z.infer<typeof envSchema>;
export type EnvName = keyof Env;

/** The documentation of each variable, in schema order. */
export function variableDocs(): [EnvName, VariableDoc][] {
  return Object.entries(envSchema.shape).map(([name, schema]) => [name as EnvName, schema.meta() as unknown as VariableDoc]);
}
