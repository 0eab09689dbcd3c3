import { z } from 'zod';
import type { IncomingHttpHeaders } from 'node:http';
import { QuireError } from '../../vault-store/errors.js';
import { normalizeVaultFilePath } from '../../vault-store/paths.js';
import type { OpContext } from './operation.js';

/** A file path as sent; `normalizeVaultFilePath` applies the rules (no minimum: "" is INVALID_PATH). */
export const filePath = z.string().max(4096).describe('Vault-relative file path, e.g. "img/diagram.png" or "notes/plan.md"');

/** A file path the caller may read; a hidden one is reported exactly like a missing one. */
export function visibleFile(ctx: OpContext, raw: string): string {
  const path = normalizeVaultFilePath(raw);
  if (!ctx.visible(path)) throw new QuireError('NOT_FOUND', `No file at ${path}`, { path });
  return path;
}

/**
 * `base_hash` from HTTP's preconditions, as the file routes take it: `If-Match: "<hash>"`
 * (the quotes optional) is the hash the write is based on, `If-None-Match: *` creates only.
 * An If-Match that is no hash is passed on for the input schema to refuse.
 */
export function preconditions(headers: IncomingHttpHeaders): Record<string, unknown> {
  const ifMatch = headers['if-match'];
  const ifNoneMatch = headers['if-none-match'];
  if (ifMatch !== undefined && ifNoneMatch !== undefined) {
    throw new QuireError('INVALID_REQUEST', 'Send If-Match or If-None-Match, not both');
  }
  if (ifMatch !== undefined) return { base_hash: ifMatch.trim().replace(/^"(.*)"$/, '$1') };
  if (ifNoneMatch === undefined) return {};
  if (ifNoneMatch.trim() !== '*') throw new QuireError('INVALID_REQUEST', 'On a write, If-None-Match takes only "*" (create only)');
  return { base_hash: null };
}
