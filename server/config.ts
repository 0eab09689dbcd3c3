import { resolve } from 'node:path';
import { loadPlans, type Plans } from './accounts/plans.js';
import { parseTrustProxy, type TrustProxy } from './http/trust-proxy.js';

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
  /** Express's `trust proxy`: which X-Forwarded-For hops make `req.ip` (off by default). */
  trustProxy: TrustProxy;
  llm?: LlmConfig;
  /** Embeddings model for similar pages; without it similarity is by shared terms. */
  embeddings?: LlmConfig;
}

export interface ConfigFlags {
  data?: string;
  port?: string;
  host?: string;
  baseUrl?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function parseUrl(name: string, value: string, problems: string[]): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`${name} must be http or https: ${value}`);
    if (url.search || url.hash) problems.push(`${name} must not have a query or fragment: ${value}`);
    return url.href.replace(/\/+$/, '');
  } catch {
    problems.push(`${name} is not a URL: ${value}`);
    return value;
  }
}

function parseInteger(name: string, value: string, min: number, max: number, problems: string[]): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) problems.push(`${name} must be an integer from ${min} to ${max}: ${value}`);
  return n;
}

/**
 * Reads flags (which win) and the environment, validating all of it and reporting every
 * problem at once, so an operator fixes the whole list in one go.
 */
export function loadConfig(env: NodeJS.ProcessEnv, flags: ConfigFlags = {}): Config {
  const problems: string[] = [];
  const dataDir = resolve(flags.data ?? env.QUIRE_DATA ?? './data');
  const port = parseInteger('PORT', flags.port ?? env.PORT ?? '8787', 0, 65535, problems);
  const host = flags.host ?? env.HOST ?? '127.0.0.1';
  const baseUrl = parseUrl('QUIRE_BASE_URL', flags.baseUrl ?? env.QUIRE_BASE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`, problems);
  const authUrl = parseUrl('QUIRE_AUTH_URL', env.QUIRE_AUTH_URL ?? baseUrl, problems);
  const accountUrl = parseUrl('QUIRE_ACCOUNT_URL', env.QUIRE_ACCOUNT_URL ?? `${baseUrl}/account`, problems);
  const maxPageBytes = parseInteger('QUIRE_MAX_PAGE_BYTES', env.QUIRE_MAX_PAGE_BYTES ?? String(1024 * 1024), 1024, 64 * 1024 * 1024, problems);
  const watchRaw = (env.QUIRE_WATCH ?? 'true').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(watchRaw)) problems.push(`QUIRE_WATCH must be true or false: ${env.QUIRE_WATCH}`);
  const watch = watchRaw === 'true' || watchRaw === '1';
  const trustProxy = parseTrustProxy(env.QUIRE_TRUST_PROXY, problems);
  const { plans, problems: planProblems } = loadPlans(env.QUIRE_PLANS_FILE);
  problems.push(...planProblems);
  let llm: LlmConfig | undefined;
  if (env.QUIRE_LLM_BASE_URL || env.QUIRE_LLM_MODEL) {
    if (!env.QUIRE_LLM_BASE_URL || !env.QUIRE_LLM_MODEL) problems.push('QUIRE_LLM_BASE_URL and QUIRE_LLM_MODEL must be set together');
    else llm = { baseUrl: parseUrl('QUIRE_LLM_BASE_URL', env.QUIRE_LLM_BASE_URL, problems), model: env.QUIRE_LLM_MODEL, apiKey: env.QUIRE_LLM_API_KEY };
  }
  let embeddings: LlmConfig | undefined;
  if (env.QUIRE_EMBEDDINGS_MODEL) {
    // Most OpenAI-compatible servers serve chat and embeddings side by side.
    const url = env.QUIRE_EMBEDDINGS_BASE_URL ?? env.QUIRE_LLM_BASE_URL;
    if (!url) problems.push('QUIRE_EMBEDDINGS_MODEL needs QUIRE_EMBEDDINGS_BASE_URL (or QUIRE_LLM_BASE_URL)');
    else embeddings = { baseUrl: parseUrl('QUIRE_EMBEDDINGS_BASE_URL', url, problems), model: env.QUIRE_EMBEDDINGS_MODEL, apiKey: env.QUIRE_EMBEDDINGS_API_KEY ?? env.QUIRE_LLM_API_KEY };
  }
  if (problems.length) throw new ConfigError(problems);
  return { dataDir, port, host, baseUrl, authUrl, accountUrl, plans, maxPageBytes, watch, trustProxy, ...(llm ? { llm } : {}), ...(embeddings ? { embeddings } : {}) };
}
