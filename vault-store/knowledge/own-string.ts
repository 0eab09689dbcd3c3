/**
 * A copy of `s` that does not point into the text it was cut from. V8 keeps a substring as a
 * slice of its parent, so a title or a link target held for the life of the index pinned the
 * whole page text (most of the metadata's memory at 10k pages). A JSON round trip makes a
 * fresh flat string.
 */
export function own(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}
