import { z } from 'zod';

/**
 * A page path as sent. No minimum length: an empty path reaches `normalizePagePath`, which
 * applies the full rules, so it is refused as INVALID_PATH like every other bad path.
 */
export const pagePath = z.string().max(4096).describe('Vault-relative page path, e.g. "projects/plan.md" (".md" may be omitted)');

/** A git blob SHA-1 as returned in `hash`. */
export const blobHash = z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-character hex blob hash');

export const baseHash = z
  .union([blobHash, z.null()])
  .optional()
  .describe('The page hash your edit is based on: a hash (must match the current page), null (page must not exist) or omitted (overwrite)');

/** A folder filter; handlers pass it through `normalizePrefix`, so both spellings name one folder. */
export const folderPrefix = z
  .string()
  .max(1024)
  .optional()
  .describe('A folder: "notes" and "notes/" both mean the folder notes/ and its subfolders; omitted, the whole vault');

export const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

/** The cursor of a paged list: what the previous page answered as `next_cursor`. */
export const pageCursor = z.string().max(2048).optional().describe('next_cursor from the previous call');

/** The `next_cursor` a paged list answers. */
export const nextCursor = z.string().nullable().describe('Pass as cursor for the next page of results; null when none remain');
