import type { PairFilters } from './pair-filter.js';
import type { Postings } from './postings.js';
import type { DocTerms, TermStats } from './term-stats.js';

/** What the index keeps of a page: enough to answer without touching git. */
export interface IndexedPage {
  path: string;
  title: string;
  hash: string;
  tags: string[];
  /** Markdown after the frontmatter; snippets, phrases and ask read it (see `body()`). */
  body: string;
}

export interface IndexedDoc extends Omit<IndexedPage, 'body'> {
  id: number;
  terms: DocTerms;
  /** Bytes its term table holds, when a page can tell without reading it (a restored one: see index-snapshot.ts). */
  termBytes?(): number;
}

/**
 * The read side of the search index, all a query needs: `SearchIndex` implements it and
 * hands itself to `runSearch`, so the ranking code depends on this, not on the index.
 */
export interface IndexedDocs {
  /** By numeric id; removed pages leave holes that later pages reuse. */
  readonly docs: (IndexedDoc | undefined)[];
  readonly stats: TermStats;
  readonly postings: Postings;
  /** Which neighbouring terms each page's body holds, for phrases (made as phrase queries ask). */
  readonly pairs: PairFilters;
  /** Each page's field lengths, FIELD_COUNT per id. */
  readonly lengths: Uint32Array;
  body(doc: IndexedDoc): string;
  knows(term: string, visible?: (path: string) => boolean): boolean;
}
