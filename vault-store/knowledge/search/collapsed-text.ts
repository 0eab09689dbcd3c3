/**
 * Whitespace runs to collapse into one space: what /\s+/ matches, minus the single spaces
 * already right (the bulk of them: replacing those too made this a third of a snippet).
 */
export const SPACING = /\s{2,}|[^\S ]/g;

/** `text` as a snippet shows it: every whitespace run one space, trimmed. */
export function collapse(text: string): string {
  return text.replace(SPACING, ' ').trim();
}

/** The characters /\s/ matches in ASCII text. */
const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13);

/** Every whitespace run that `collapse` changes holds one of these (two spaces, or any other space character). */
const SEEDS = ['\n', '\t', '\r', '\v', '\f', '  '];

/**
 * `collapse(raw)` for ASCII `raw`, without building it: positions are mapped between the two,
 * and only the stretches asked for are collapsed. Collapsing a whole page body was more than
 * half of a snippet's cost, though a snippet shows 180 characters of it. The runs that change
 * are found from `indexOf` of their seeds (memchr-fast), not by a regular expression over
 * every character.
 */
export class CollapsedAscii {
  /** Raw start and end of each run that becomes one space, in order. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** Where each run's space sits in the collapsed text before trimming. */
  private readonly spaces: number[] = [];
  /** 1 when the collapsed text loses a leading space to the trim. */
  private readonly lead: number;
  /** Length of the collapsed, trimmed text. */
  readonly length: number;

  constructor(private readonly raw: string) {
    const seeds: number[] = [];
    for (const seed of SEEDS) for (let at = raw.indexOf(seed); at >= 0; at = raw.indexOf(seed, at + 1)) seeds.push(at);
    seeds.sort((a, b) => a - b);
    let removed = 0;
    let runEnd = 0;
    for (const seed of seeds) {
      if (seed < runEnd) continue;
      let start = seed;
      while (start > 0 && isSpace(raw.charCodeAt(start - 1))) start--;
      runEnd = seed + 1;
      while (runEnd < raw.length && isSpace(raw.charCodeAt(runEnd))) runEnd++;
      this.starts.push(start);
      this.ends.push(runEnd);
      this.spaces.push(start - removed);
      removed += runEnd - start - 1;
    }
    const trail = raw.length > 0 && isSpace(raw.charCodeAt(raw.length - 1)) ? 1 : 0;
    this.lead = raw.length > 0 && isSpace(raw.charCodeAt(0)) ? 1 : 0;
    this.length = raw.length - removed - this.lead - trail;
  }

  /**
   * Collapsed positions of raw positions `at` (ascending, none inside a run: word starts),
   * as the trimmed text counts them.
   */
  positions(at: readonly number[]): number[] {
    const out: number[] = [];
    let run = 0;
    let removed = 0;
    for (const p of at) {
      for (; run < this.starts.length && this.ends[run] <= p; run++) removed += this.ends[run] - this.starts[run] - 1;
      out.push(p - removed - this.lead);
    }
    return out;
  }

  /** The collapsed text from `from` to `to` (positions in the trimmed text). */
  slice(from: number, to: number): string {
    return this.raw.slice(this.rawAt(from + this.lead), this.rawAt(to + this.lead)).replace(SPACING, ' ');
  }

  /** Raw position of an untrimmed collapsed position: a run's space maps to the run's start. */
  private rawAt(position: number): number {
    let removed = 0;
    for (let run = 0; run < this.spaces.length && this.spaces[run] <= position; run++) {
      if (this.spaces[run] === position) return this.starts[run];
      removed += this.ends[run] - this.starts[run] - 1;
    }
    return position + removed;
  }
}
