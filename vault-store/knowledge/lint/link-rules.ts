import type { LintCheck } from './finding.js';

/**
 * Every link that matches no page the caller can see, with its line: a link to a hidden
 * page is broken for that caller, or its absence here would reveal that the page exists.
 */
export const brokenLinks: LintCheck = ({ pages, graph, shown }) =>
  pages.flatMap((page) =>
    graph
      .links(page.path)
      .filter((link) => link.resolved === null || !shown(link.resolved))
      .map((link) => ({
        rule: 'broken-link' as const,
        path: page.path,
        line: link.line,
        message: link.kind === 'wiki' ? `[[${link.target}]] matches no page` : `Link to ${link.target} matches no page`,
      })),
  );

/** Every link or embed of an attachment that matches no file the caller can see, with its line. */
export const missingAttachments: LintCheck = ({ pages, attachments }) =>
  pages.flatMap((page) =>
    attachments
      .linksOf(page)
      .filter((link) => link.resolved === null)
      .map((link) => ({
        rule: 'missing-attachment' as const,
        path: page.path,
        line: link.line,
        message: `${link.target} matches no file of the vault`,
      })),
  );

/**
 * Pages that are entry points by convention are never orphans: `capture/` (the inbox, whose
 * notes are filed later), the root GUIDE.md, and index.md / README.md in any folder.
 */
export function exemptFromOrphan(path: string): boolean {
  const lower = path.toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  return lower.startsWith('capture/') || lower === 'guide.md' || name === 'index.md' || name === 'readme.md';
}

/** Pages with no link in or out, counting only pages the caller can see. */
export const orphanPages: LintCheck = ({ pages, graph, shown }) =>
  pages
    .filter((page) => !exemptFromOrphan(page.path) && graph.inDegree(page.path, shown) === 0 && graph.outDegree(page.path, shown) === 0)
    .map((page) => ({ rule: 'orphan-page' as const, path: page.path, message: 'No page links here and this page links to no page' }));
