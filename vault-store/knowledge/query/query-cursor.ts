import { crc32 } from 'node:zlib';
import { QuireError } from '../../errors.js';
import type { Comparable } from './comparable.js';

/** Where a page of results ended: the last row's sort values and path, and which query it belongs to. */
export interface CursorKey {
  values: Comparable[];
  path: string;
}

interface Encoded {
  q: number;
  v: Comparable[];
  p: string;
}

/** A query's identity for its cursors: a cursor of another query (other from, where or sort) is refused. */
export function queryStamp(parts: unknown): number {
  return crc32(JSON.stringify(parts));
}

/**
 * Opaque to clients: the last row's sort key, so the next page starts after it whatever was
 * added or removed meanwhile (no row is skipped or repeated that stayed in place).
 */
export function encodeCursor(stamp: number, key: CursorKey): string {
  const encoded: Encoded = { q: stamp, v: key.values.map((v) => (v === undefined ? null : v)), p: key.path };
  return Buffer.from(JSON.stringify(encoded)).toString('base64url');
}

export function decodeCursor(cursor: string, stamp: number, sortFields: number): CursorKey {
  let decoded: Encoded | undefined;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Encoded;
  } catch {
    decoded = undefined;
  }
  if (!decoded || typeof decoded.p !== 'string' || !Array.isArray(decoded.v) || decoded.v.length !== sortFields) {
    throw new QuireError('INVALID_CURSOR', 'cursor is not one this operation gave', { field: 'cursor' });
  }
  if (decoded.q !== stamp)
    throw new QuireError('INVALID_CURSOR', 'cursor belongs to another query (from, where and sort must stay the same)', {
      field: 'cursor',
    });
  return { values: decoded.v, path: decoded.p };
}
