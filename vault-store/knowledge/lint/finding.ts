import type { AttachmentIndex } from '../graph/attachment-links.js';
import type { LinkGraph } from '../graph/link-graph.js';
import type { Visible } from '../graph/graph-view.js';
import type { PageMeta } from '../page-meta.js';

export const LINT_RULES = [
  'broken-link',
  'orphan-page',
  'empty-page',
  'duplicate-title',
  'invalid-frontmatter',
  'case-collision',
  'unportable-name',
  'oversize-page',
  'missing-attachment',
] as const;

export type LintRule = (typeof LINT_RULES)[number];

export interface LintFinding {
  rule: LintRule;
  path: string;
  message: string;
  /** 1-based line in the file, where the finding has one. */
  line?: number;
}

/** What every rule sees: only the pages the caller may read, sorted by path. */
export interface LintContext {
  pages: PageMeta[];
  graph: LinkGraph;
  shown: Visible;
  maxPageBytes: number;
  /** The attachments the caller may read: a link to any other is missing for that caller. */
  attachments: AttachmentIndex;
}

export type LintCheck = (context: LintContext) => LintFinding[];
