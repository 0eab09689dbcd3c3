import type { ErrorCode } from '../../vault-store/errors.js';

/** The one table from error code to HTTP status. MCP uses the codes, not these numbers. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_REQUEST: 400,
  INVALID_PATH: 400,
  INVALID_CURSOR: 400,
  UNAUTHENTICATED: 401,
  INSUFFICIENT_SCOPE: 403,
  PLAN_REQUIRED: 403,
  AGENT_FORBIDDEN: 403,
  DEVICE_ONLY: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  CASE_COLLISION: 409,
  CURSOR_REGRESSION: 409,
  CURSOR_UNKNOWN: 410,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  VAULT_BUSY: 503,
  NOT_IMPLEMENTED: 501,
  INTERNAL: 500,
};
