import CachePolicy from 'http-cache-semantics';
import { InvalidClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { isLoopbackHost } from '../http/loopback.js';
import { clientFromDocument, documentUrl, MetadataRefused } from './client-metadata-rules.js';
import { FetchRefused, safeFetch, type Fetched, type SafeFetchOptions } from './safe-fetch.js';

/**
 * The limits of a fetch (draft-ietf-oauth-client-id-metadata-document §8.7 suggests 5 KiB).
 * A module setting rather than configuration: tests shorten the timeout and trust their own
 * certificate (`ca`) or resolver (`lookup`); nothing else changes them.
 */
export const documentFetch: Omit<SafeFetchOptions, 'allowLoopback'> = { timeoutMs: 5_000, maxBytes: 5 * 1024 };

/** Kept at least this long (a document without caching headers is not refetched per request), at most a day. */
const MIN_LIFETIME_MS = 5 * 60_000;
const MAX_LIFETIME_MS = 24 * 60 * 60_000;
/** A refusal is remembered briefly, so a bad or slow URL cannot make us hammer its host. */
const REFUSAL_LIFETIME_MS = 60_000;
const MAX_ENTRIES = 1000;

interface Entry {
  client?: OAuthClientInformationFull;
  refusal?: string;
  until: number;
}

/**
 * Clients identified by the URL of their metadata document (MCP 2025-11-25): fetched on
 * first use, validated, and kept per the document's caching headers. Such a client is public
 * and proves itself with PKCE like a registered one; nothing of it is stored on disk.
 */
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();

  /** `loopbackMode`: this server's base URL is on loopback, so documents on loopback (http too) are allowed. */
  constructor(
    private readonly loopbackMode: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  static forBaseUrl(baseUrl: string): ClientMetadataDocuments {
    return new ClientMetadataDocuments(isLoopbackHost(new URL(baseUrl).hostname));
  }

  /** The client, or `invalid_client` naming what is wrong with its document. */
  async resolve(clientId: string): Promise<OAuthClientInformationFull> {
    const refuse = (reason: string) => new InvalidClientError(`Client metadata document ${clientId}: ${reason}`);
    let url: URL;
    try {
      url = documentUrl(clientId, this.loopbackMode);
    } catch (error) {
      // Refused without a fetch, so not cached: junk ids cannot push real documents out.
      throw error instanceof MetadataRefused ? refuse(error.message) : error;
    }
    const cached = this.cache.get(clientId);
    const entry = cached && cached.until > this.now() ? cached : await this.load(clientId, url);
    if (!entry.client) throw refuse(entry.refusal!);
    return entry.client;
  }

  /** One fetch per URL at a time: concurrent requests for the same client share it. */
  private load(clientId: string, url: URL): Promise<Entry> {
    let loading = this.loading.get(clientId);
    if (!loading) {
      loading = this.fetchEntry(clientId, url).finally(() => this.loading.delete(clientId));
      this.loading.set(clientId, loading);
    }
    return loading;
  }

  private async fetchEntry(clientId: string, url: URL): Promise<Entry> {
    let entry: Entry;
    try {
      const fetched = await safeFetch(url, { ...documentFetch, allowLoopback: this.loopbackMode });
      entry = { client: clientFromDocument(clientId, fetched), until: this.now() + lifetime(url, fetched) };
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      const refusal =
        error instanceof MetadataRefused || error instanceof FetchRefused ? error.message : `could not be fetched (${error.message})`;
      entry = { refusal, until: this.now() + REFUSAL_LIFETIME_MS };
    }
    if (entry.until > this.now()) this.remember(clientId, entry);
    return entry;
  }

  /** Bounded: expired entries go first, then the oldest. */
  private remember(clientId: string, entry: Entry): void {
    this.cache.delete(clientId);
    if (this.cache.size >= MAX_ENTRIES) {
      for (const [key, old] of this.cache) if (old.until <= this.now()) this.cache.delete(key);
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(clientId, entry);
  }
}

/** How long a document is kept: 0 for `no-store`, else its HTTP freshness within our bounds. */
function lifetime(url: URL, fetched: Fetched): number {
  const policy = new CachePolicy(
    { url: url.pathname + url.search, method: 'GET', headers: { accept: 'application/json' } },
    { status: fetched.status, headers: fetched.headers },
    { shared: false },
  );
  if (!policy.storable()) return 0;
  return Math.min(MAX_LIFETIME_MS, Math.max(MIN_LIFETIME_MS, policy.timeToLive()));
}
