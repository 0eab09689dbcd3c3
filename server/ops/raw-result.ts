import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A result that is not JSON (a zip download, a file's bytes): the operation writes the
 * response itself, reading the request's conditional and range headers when it needs them.
 * Only REST carries it: a REST-only operation, or the `restHandler` of one with a tool.
 */
export interface RawResult {
  raw: true;
  send: (res: ServerResponse, req: IncomingMessage) => Promise<void>;
}

export function isRawResult(value: unknown): value is RawResult {
  return typeof value === 'object' && value !== null && (value as RawResult).raw === true;
}
