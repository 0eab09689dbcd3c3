import type { IncomingMessage as Request, ServerResponse as Response } from 'node:http';
import { lookup } from 'mime-types';
import rangeParser from 'range-parser';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { matchesIfNoneMatch } from './conditional.js';

/** A file's media type from its extension (`.md` is text/markdown); unknown ones are plain bytes. */
export function mediaType(path: string): string {
  return lookup(path) || 'application/octet-stream';
}

/** What a file response needs: its validator, size, and its bytes or a range of them. */
export interface FileSource {
  path: string;
  hash: string;
  size: number;
  open: (range?: { start: number; end: number }) => Promise<Readable>;
}

/**
 * The one range to send, when the request asks for exactly one that fits (RFC 9110 §14):
 * a malformed header or another unit is ignored (the whole file), several ranges are
 * answered with the whole file (allowed, and simpler than multipart/byteranges), an
 * `If-Range` naming another version asks for the whole file, and a range wholly past the
 * end is unsatisfiable ('none').
 */
function pickRange(req: Request, source: FileSource): { start: number; end: number } | 'none' | undefined {
  const header = req.headers.range;
  if (!header) return undefined;
  const ifRange = req.headers['if-range'];
  if (ifRange !== undefined && ifRange !== `"${source.hash}"`) return undefined;
  const ranges = rangeParser(source.size, header, { combine: true });
  if (ranges === -1) return 'none';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}

/**
 * Answers with a file's bytes: content type from the extension, `ETag` (the blob id, strong),
 * `Content-Length`, 304 for a matching `If-None-Match`, 206 for one `Range`, 416 for one past
 * the end. A client gone mid-stream, or a read failing after the headers, cuts the stream.
 */
export async function sendFile(req: Request, res: Response, source: FileSource): Promise<void> {
  res.setHeader('ETag', `"${source.hash}"`);
  res.setHeader('Accept-Ranges', 'bytes');
  if (matchesIfNoneMatch(req.headers['if-none-match'], source.hash)) return void res.writeHead(304).end();
  const range = pickRange(req, source);
  if (range === 'none') {
    res.setHeader('Content-Range', `bytes */${source.size}`);
    return void res.writeHead(416).end();
  }
  res.setHeader('Content-Type', mediaType(source.path));
  if (range) {
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${source.size}`);
    res.setHeader('Content-Length', range.end - range.start + 1);
  } else res.setHeader('Content-Length', source.size);
  if (req.method === 'HEAD') return void res.end();
  const body = await source.open(range);
  try {
    await pipeline(body, res);
  } catch (err) {
    // pipeline has destroyed the response: a client gone, or a cut the client sees as one.
    if (res.headersSent) return;
    throw err;
  }
}
