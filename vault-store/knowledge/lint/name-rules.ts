import { unportableReason } from '../../paths.js';
import type { PageMeta } from '../page-meta.js';
import type { LintCheck, LintFinding, LintRule } from './finding.js';

/** Groups pages by a key; yields each page of a group of two or more with the others' paths. */
function clashes(pages: PageMeta[], keyOf: (page: PageMeta) => string): [PageMeta, string[]][] {
  const groups = new Map<string, PageMeta[]>();
  for (const page of pages) {
    const key = keyOf(page);
    const group = groups.get(key);
    if (group) group.push(page);
    else groups.set(key, [page]);
  }
  return [...groups.values()]
    .filter((g) => g.length > 1)
    .flatMap((group) => group.map((page): [PageMeta, string[]] => [page, group.filter((p) => p !== page).map((p) => p.path)]));
}

function finding(rule: LintRule, page: PageMeta, message: string, line?: number): LintFinding {
  return line === undefined ? { rule, path: page.path, message } : { rule, path: page.path, message, line };
}

/** Titles equal but for case; the line is the H1's when the title comes from one. */
export const duplicateTitles: LintCheck = ({ pages }) =>
  clashes(pages, (page) => page.title.normalize('NFC').toLowerCase()).map(([page, others]) => {
    return finding('duplicate-title', page, `Title "${page.title}" is also the title of ${others.join(', ')}`, page.titleLine);
  });

/**
 * Paths equal but for case: the API refuses them (CASE_COLLISION), but edits made outside
 * it can create them, and they break checkouts on case-insensitive file systems.
 */
export const caseCollisions: LintCheck = ({ pages }) =>
  clashes(pages, (page) => page.path.toLowerCase()).map(([page, others]) =>
    finding('case-collision', page, `Path differs only in case from ${others.join(', ')}`),
  );

/**
 * Names the API refuses to create because Windows cannot check them out (CON.md, a:b.md);
 * they can still arrive through the folder or git, and a clone on Windows then fails.
 */
export const unportableNames: LintCheck = ({ pages }) =>
  pages.flatMap((page) => {
    const why = unportableReason(page.path);
    return why ? [finding('unportable-name', page, `Windows cannot check out this name (${why}); rename it with move`)] : [];
  });
