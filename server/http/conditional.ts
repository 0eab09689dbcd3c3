/**
 * RFC 9110 §13.1.2: weak comparison against each listed tag, `*` matching any. Not
 * `req.fresh`: it also honours a request's `Cache-Control: no-cache`, which fetch adds to
 * every conditional request, so no fetch client would ever get its 304.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === `"${etag}"`;
  });
}
