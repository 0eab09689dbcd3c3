/**
 * The one error class of Quire. Codes form a closed set so both surfaces (REST status
 * table, MCP isError results) can map every failure without guessing. The domain
 * (vault-store) raises the vault codes; the server raises the credential and transport
 * ones. The HTTP mapping lives in server/http/status.ts, not here: the domain knows no HTTP.
 */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'INVALID_PATH',
  'INVALID_CURSOR',
  'UNAUTHENTICATED',
  'INSUFFICIENT_SCOPE',
  'PLAN_REQUIRED',
  'AGENT_FORBIDDEN',
  'DEVICE_ONLY',
  'NOT_FOUND',
  'CONFLICT',
  'CASE_COLLISION',
  'CURSOR_REGRESSION',
  'CURSOR_UNKNOWN',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'VAULT_BUSY',
  'NOT_IMPLEMENTED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class QuireError extends Error {
  readonly code: ErrorCode;
  /** Extra fields the client needs to act (e.g. `current_hash` on CONFLICT). */
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'QuireError';
    this.code = code;
    this.details = details;
  }

  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.details };
  }
}

export function isQuireError(err: unknown): err is QuireError {
  return err instanceof QuireError;
}
