import { resolve } from 'node:path';
import { loadPlans, type Plans } from './accounts/plans.js';
import type { ScryptCost } from './accounts/secrets.js';
import { ConfigError } from './config/config-error.js';
import { envSchema, type LogLevel } from './config/schema.js';
import { httpUrl } from './config/values.js';
import type { TrustProxy } from './http/trust-proxy.js';
import { defaultMemoryBudgetBytes } from './vaults/memory.js';

export interface LlmConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/** Everything the server needs, parsed once at start-up and handed down. */
export interface Config {
  dataDir: string;
  port: number;
  host: string;
  /** Public URL of this server, no trailing slash. */
  baseUrl: string;
  /** Where the browser OAuth pages live (defaults to baseUrl). */
  authUrl: string;
  accountUrl: string;
  plans: Plans;
  maxPageBytes: number;
  /** Watch vault folders and commit direct edits (off for API-only deployments). */
  watch: boolean;
  /** The watcher's settle and idle times (QUIRE_WATCH_*_MS). */
  watchTiming: { quietMs: number; stabilityMs: number; idleMs: number };
  /** Longest time from a commit to the save of the search index that holds it. */
  indexPersistMs: number;
  /** How long a write waits for a lock git holds in a vault folder. */
  gitLockWaitMs: number;
  /** What the loaded vaults may hold together (QUIRE_MEMORY_BUDGET_MB), in bytes. */
  memoryBudgetBytes: number;
  /** A vault unused this long is closed; 0: only the memory budget closes vaults. */
  vaultIdleMs: number;
  /** MCP sessions: idle time before one ends, and how many one user and the server hold. */
  mcpSessions: { idleMs: number; perUser: number; max: number };
  /** Live changes (events streams, long-polls): connections per user, the stream's heartbeat and lifetime. */
  live: { perUser: number; heartbeatMs: number; maxStreamMs: number };
  /** Express's `trust proxy`: which X-Forwarded-For hops make `req.ip` (off by default). */
  trustProxy: TrustProxy;
  /** Successful OAuth client registrations one address may make per hour. */
  oauthRegistrationsPerHour: number;
  /** Browser origins whose pages may call /mcp (CORS and the rebinding guard). */
  mcpAllowedOrigins: string[];
  logLevel: LogLevel;
  llm?: LlmConfig;
  /** Embeddings model for similar pages; without it similarity is by shared terms. */
  embeddings?: LlmConfig;
  /** scrypt's costs for passwords set by the server; no variable sets them (tests lower them), the default is SCRYPT. */
  passwordCost?: ScryptCost;
}

export interface ConfigFlags {
  data?: string;
  port?: string;
  host?: string;
  baseUrl?: string;
}

export { ConfigError };

/** Flags (which win) over the environment: the raw strings the schema parses. */
function envWithFlags(env: NodeJS.ProcessEnv, flags: ConfigFlags): Record<string, string | undefined> {
  const flagged = { QUIRE_DATA: flags.data, PORT: flags.port, HOST: flags.host, QUIRE_BASE_URL: flags.baseUrl };
  return { ...env, ...Object.fromEntries(Object.entries(flagged).filter(([, value]) => value !== undefined)) };
}

/** Rules between variables, on the raw strings so they are reported even when a value is bad. */
function pairingProblems(env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  if ((env.QUIRE_LLM_BASE_URL || env.QUIRE_LLM_MODEL) && !(env.QUIRE_LLM_BASE_URL && env.QUIRE_LLM_MODEL))
    problems.push('QUIRE_LLM_BASE_URL and QUIRE_LLM_MODEL must be set together');
  // Most OpenAI-compatible servers serve chat and embeddings side by side.
  if (env.QUIRE_EMBEDDINGS_MODEL && !(env.QUIRE_EMBEDDINGS_BASE_URL ?? env.QUIRE_LLM_BASE_URL))
    problems.push('QUIRE_EMBEDDINGS_MODEL needs QUIRE_EMBEDDINGS_BASE_URL (or QUIRE_LLM_BASE_URL)');
  return problems;
}

/** A URL derived from other variables, checked like one given. */
function derivedUrl(name: string, value: string, problems: string[]): string {
  const parsed = httpUrl().safeParse(value);
  if (!parsed.success) problems.push(...parsed.error.issues.map((issue) => `${name} ${issue.message}`));
  return parsed.data ?? value;
}

/**
 * Reads flags (which win) and the environment through the one schema (server/config/schema.ts),
 * reporting every problem at once, so an operator fixes the whole list in one go.
 */
export function loadConfig(env: NodeJS.ProcessEnv, flags: ConfigFlags = {}): Config {
  const raw = envWithFlags(env, flags);
  const parsed = envSchema.safeParse(raw);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  problems.push(...pairingProblems(raw));
  const { plans, problems: planProblems } = loadPlans(raw.QUIRE_PLANS_FILE);
  problems.push(...planProblems);
  if (!parsed.success) throw new ConfigError(problems);
  const vars = parsed.data;
  const host = vars.HOST.includes(':') ? `[${vars.HOST}]` : vars.HOST;
  const baseUrl = vars.QUIRE_BASE_URL ?? derivedUrl('QUIRE_BASE_URL', `http://${host}:${vars.PORT}`, problems);
  if (problems.length) throw new ConfigError(problems);
  const llm =
    vars.QUIRE_LLM_BASE_URL && vars.QUIRE_LLM_MODEL
      ? { baseUrl: vars.QUIRE_LLM_BASE_URL, model: vars.QUIRE_LLM_MODEL, apiKey: vars.QUIRE_LLM_API_KEY }
      : undefined;
  const embeddingsUrl = vars.QUIRE_EMBEDDINGS_BASE_URL ?? vars.QUIRE_LLM_BASE_URL;
  const embeddings =
    vars.QUIRE_EMBEDDINGS_MODEL && embeddingsUrl
      ? { baseUrl: embeddingsUrl, model: vars.QUIRE_EMBEDDINGS_MODEL, apiKey: vars.QUIRE_EMBEDDINGS_API_KEY ?? vars.QUIRE_LLM_API_KEY }
      : undefined;
  return {
    dataDir: resolve(vars.QUIRE_DATA),
    port: vars.PORT,
    host: vars.HOST,
    baseUrl,
    authUrl: vars.QUIRE_AUTH_URL ?? baseUrl,
    accountUrl: vars.QUIRE_ACCOUNT_URL ?? `${baseUrl}/account`,
    plans,
    maxPageBytes: vars.QUIRE_MAX_PAGE_BYTES,
    watch: vars.QUIRE_WATCH,
    watchTiming: { quietMs: vars.QUIRE_WATCH_SETTLE_MS, stabilityMs: vars.QUIRE_WATCH_STABLE_MS, idleMs: vars.QUIRE_WATCH_IDLE_MS },
    indexPersistMs: vars.QUIRE_INDEX_PERSIST_MS,
    gitLockWaitMs: vars.QUIRE_GIT_LOCK_WAIT_MS,
    memoryBudgetBytes: vars.QUIRE_MEMORY_BUDGET_MB === undefined ? defaultMemoryBudgetBytes() : vars.QUIRE_MEMORY_BUDGET_MB * 1024 * 1024,
    vaultIdleMs: vars.QUIRE_VAULT_IDLE_MS,
    mcpSessions: { idleMs: vars.QUIRE_MCP_SESSION_IDLE_MS, perUser: vars.QUIRE_MCP_SESSIONS_PER_USER, max: vars.QUIRE_MCP_SESSIONS_MAX },
    live: {
      perUser: vars.QUIRE_LIVE_CONNECTIONS_PER_USER,
      heartbeatMs: vars.QUIRE_EVENTS_HEARTBEAT_MS,
      maxStreamMs: vars.QUIRE_EVENTS_MAX_MS,
    },
    trustProxy: vars.QUIRE_TRUST_PROXY ?? false,
    oauthRegistrationsPerHour: vars.QUIRE_OAUTH_REGISTRATIONS_PER_HOUR,
    mcpAllowedOrigins: vars.QUIRE_MCP_ALLOWED_ORIGINS ?? [],
    logLevel: vars.QUIRE_LOG_LEVEL,
    ...(llm ? { llm } : {}),
    ...(embeddings ? { embeddings } : {}),
  };
}
