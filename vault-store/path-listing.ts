import { QuireError } from './errors.js';
import { lowerBound } from './sorted.js';

export interface ListingInput {
  /** A folder prefix from normalizePrefix ("" or ending in "/"). */
  prefix?: string;
  limit: number;
  /** The last path of the previous page, as `encodeCursor` gave it. */
  cursor?: string;
  visible?: (path: string) => boolean;
}

/**
 * One page of a sorted path list (pages, or every vault file): at most `limit` visible paths
 * under `prefix` after `cursor`, and the cursor of the next page while another visible path
 * remains; hidden paths after the last one must not show as a cursor.
 */
export function listSorted(all: readonly string[], input: ListingInput): { paths: string[]; next_cursor: string | null } {
  const prefix = input.prefix ?? '';
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  let i = lowerBound(all, after !== undefined && after >= prefix ? after : prefix);
  if (after !== undefined && all[i] === after) i += 1;
  const paths: string[] = [];
  let more = false;
  for (; i < all.length && all[i].startsWith(prefix); i++) {
    if (input.visible && !input.visible(all[i])) continue;
    if (paths.length === input.limit) {
      more = true;
      break;
    }
    paths.push(all[i]);
  }
  return { paths, next_cursor: more ? encodeCursor(paths[paths.length - 1]) : null };
}

function encodeCursor(path: string): string {
  return Buffer.from(path).toString('base64url');
}

function decodeCursor(cursor: string): string {
  const path = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!path || encodeCursor(path) !== cursor) throw new QuireError('INVALID_CURSOR', 'cursor is not one this server issued', { cursor });
  return path;
}
