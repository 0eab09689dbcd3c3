import { randomBytes } from 'node:crypto';
import type { McpScope } from '../auth/credential.js';

/** An authorization request waiting for the user to sign in and decide. */
export interface PendingAuthorization {
  id: string;
  /** Must come back in the form and in the request's cookie. */
  csrf: string;
  client_id: string;
  client_name: string;
  /** The host of a metadata-document client's logo_uri, named on the pages (the image is not loaded). */
  logo_host?: string;
  redirect_uri: string;
  state?: string;
  scopes: McpScope[];
  challenge: string;
  resource: string;
  /** Set once the password checked out. */
  user?: string;
  expires_at: number;
}

const LIFETIME_MS = 10 * 60_000;
const MAX_PENDING = 1000;

/**
 * In memory on purpose: a half-finished browser sign-in may be lost on restart (the user
 * starts again from the app), and nothing here is worth a disk write.
 */
export class PendingAuthorizations {
  private readonly byId = new Map<string, PendingAuthorization>();

  constructor(private readonly now: () => number = Date.now) {}

  create(request: Omit<PendingAuthorization, 'id' | 'csrf' | 'expires_at'>): PendingAuthorization {
    this.sweep();
    const pending: PendingAuthorization = {
      ...request,
      id: randomBytes(16).toString('base64url'),
      csrf: randomBytes(32).toString('base64url'),
      expires_at: this.now() + LIFETIME_MS,
    };
    this.byId.set(pending.id, pending);
    return pending;
  }

  get(id: string): PendingAuthorization | undefined {
    const pending = this.byId.get(id);
    if (pending && pending.expires_at <= this.now()) this.byId.delete(id);
    return this.byId.get(id);
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  /** Drops expired entries, then the oldest, so abandoned requests cannot grow without bound. */
  private sweep(): void {
    const now = this.now();
    for (const [id, p] of this.byId) if (p.expires_at <= now) this.byId.delete(id);
    while (this.byId.size >= MAX_PENDING) this.byId.delete(this.byId.keys().next().value!);
  }
}
