import type { Credential } from '../auth/credential.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import type { McpSession } from './sessions.js';

/**
 * What the protocol server built for one HTTP request knows: the caller, the catalog, and
 * where to report the rate-limit state. Each capability (tools, resources, prompts, …)
 * registers its handlers from this in its own file.
 */
export interface McpContext {
  services: Services;
  catalog: readonly AnyOperation[];
  credential: Credential;
  onRate?: (rate: RateState) => void;
  /** Authenticates the request's token again (see `OpContext.recheck`). */
  recheck?: () => Promise<boolean>;
  /** The caller's session, when the request carried a valid `Mcp-Session-Id` (or initialized one). */
  session?: McpSession;
}
