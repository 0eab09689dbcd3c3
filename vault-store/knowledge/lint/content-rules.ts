import type { LintCheck } from './finding.js';

/** Pages whose body holds nothing but headings (frontmatter is not counted in `words`). */
export const emptyPages: LintCheck = ({ pages }) =>
  pages
    .filter((page) => page.words - page.headingWords <= 0)
    .map((page) => ({ rule: 'empty-page' as const, path: page.path, message: 'Page has no text beyond frontmatter and headings' }));

/** The page is still served (the body parses as text); only its metadata is lost. */
export const invalidFrontmatter: LintCheck = ({ pages }) =>
  pages
    .filter((page) => page.frontmatterError !== undefined)
    .map((page) => ({
      rule: 'invalid-frontmatter' as const,
      path: page.path,
      line: 1,
      message: `Frontmatter does not parse: ${page.frontmatterError}`,
    }));

export const oversizePages: LintCheck = ({ pages, maxPageBytes }) =>
  pages
    .filter((page) => page.size > maxPageBytes)
    .map((page) => ({
      rule: 'oversize-page' as const,
      path: page.path,
      message: `Page is ${page.size} bytes, over the limit of ${maxPageBytes}`,
    }));
