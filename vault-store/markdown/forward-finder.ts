/**
 * Answers "the first index at or after `from` holding `find` (a string, or a character
 * test by code) in `text`", -1 when none, for a caller whose `from` never decreases. The
 * last answer is kept until a query passes it, so however many queries share one answer
 * (every `[` before the same `]`), each character is read once: this is what keeps link
 * scanning linear on hostile lines. A query that does move back is answered by a new search.
 */
export class ForwardFinder {
  private asked = -1;
  private found = -1;

  constructor(
    private readonly text: string,
    private readonly find: string | ((code: number) => boolean),
  ) {}

  from(from: number): number {
    if (this.asked >= 0 && from >= this.asked && (this.found === -1 || this.found >= from)) return this.found;
    this.asked = from;
    const { text, find } = this;
    if (typeof find === 'string') return (this.found = text.indexOf(find, from));
    for (let at = from; at < text.length; at++) if (find(text.charCodeAt(at))) return (this.found = at);
    return (this.found = -1);
  }
}
