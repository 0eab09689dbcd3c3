import type { Response } from 'express';

/**
 * A result that is not JSON (a zip download): the operation writes the response itself.
 * Only REST can carry it, so such operations are REST-only by declaration.
 */
export interface RawResult {
  raw: true;
  send: (res: Response) => Promise<void>;
}

export function isRawResult(value: unknown): value is RawResult {
  return typeof value === 'object' && value !== null && (value as RawResult).raw === true;
}
