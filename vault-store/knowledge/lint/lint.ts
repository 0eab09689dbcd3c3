import { shownIn, type Visible } from '../graph/graph-view.js';
import type { LinkGraph } from '../graph/link-graph.js';
import type { PageMeta } from '../page-meta.js';
import { emptyPages, invalidFrontmatter, oversizePages } from './content-rules.js';
import { LINT_RULES, type LintCheck, type LintFinding, type LintRule } from './finding.js';
import { AttachmentIndex } from '../graph/attachment-links.js';
import { brokenLinks, missingAttachments, orphanPages } from './link-rules.js';
import { caseCollisions, duplicateTitles, unportableNames } from './name-rules.js';

export { LINT_RULES, type LintFinding, type LintRule } from './finding.js';

export interface LintOptions {
  maxPageBytes: number;
  /** Pages the caller may read; the others are linted as if they did not exist. */
  visible?: Visible;
  /** Every attachment path of the vault (`missing-attachment`); the caller's `visible` applies to them too. */
  attachments?: readonly string[];
}

export interface LintReport {
  findings: LintFinding[];
  /** Every rule, zero included, so clients see which rules ran. */
  counts: Record<LintRule, number>;
}

const CHECKS: LintCheck[] = [
  brokenLinks,
  orphanPages,
  emptyPages,
  duplicateTitles,
  invalidFrontmatter,
  caseCollisions,
  unportableNames,
  oversizePages,
  missingAttachments,
];

function compare(a: LintFinding, b: LintFinding): number {
  const byText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    byText(a.path, b.path) ||
    (a.line ?? 0) - (b.line ?? 0) ||
    LINT_RULES.indexOf(a.rule) - LINT_RULES.indexOf(b.rule) ||
    byText(a.message, b.message)
  );
}

/** Runs every rule; findings are sorted by path, line, rule order, then message. */
export function lint(metas: ReadonlyMap<string, PageMeta>, graph: LinkGraph, options: LintOptions): LintReport {
  const shown = shownIn(metas, options.visible);
  const pages = [...metas.values()].filter((page) => shown(page.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const attachments = new AttachmentIndex((options.attachments ?? []).filter((path) => !options.visible || options.visible(path)));
  const findings = CHECKS.flatMap((check) => check({ pages, graph, shown, maxPageBytes: options.maxPageBytes, attachments })).sort(compare);
  const counts = Object.fromEntries(LINT_RULES.map((rule) => [rule, 0])) as Record<LintRule, number>;
  for (const f of findings) counts[f.rule]++;
  return { findings, counts };
}
