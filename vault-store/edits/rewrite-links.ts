import { posix } from 'node:path';
import { bodyStart } from '../markdown/frontmatter.js';
import { scanMarkdown, type LinkSpan } from '../markdown/scan.js';

const NOT_A_PAGE = /^[a-z][a-z0-9+.-]*:|^#|^\//i;

/** A markdown href from `fromPath`'s folder to `toPath`, segments URI-encoded. */
function relativeHref(fromPath: string, toPath: string): string {
  const rel = posix.relative(posix.dirname(fromPath), toPath);
  return rel
    .split('/')
    .map((seg) => (seg === '..' ? seg : encodeURIComponent(seg)))
    .join('/');
}

function resolveHref(sourcePath: string, href: string): string | undefined {
  try {
    const path = decodeURIComponent(href.split('#')[0]);
    const joined = posix.normalize(posix.join(posix.dirname(sourcePath), path));
    return joined.endsWith('.md') ? joined : `${joined}.md`;
  } catch {
    return undefined;
  }
}

export interface LinkRewrite {
  /** The page's path before and after the move. */
  from: string;
  to: string;
  /** Wiki targets, as written in this source, that resolve to `from`. */
  wikiTargets: ReadonlySet<string>;
  /** What a wiki link should now say: the new name, or a path when the name is ambiguous. */
  newWikiTarget: string;
}

/** What the link's target should now say, or undefined to leave it. */
function newTarget(link: LinkSpan, sourcePath: string, oldSourcePath: string, move: LinkRewrite): string | undefined {
  if (link.kind === 'wiki') return move.wikiTargets.has(link.target.trim()) ? move.newWikiTarget : undefined;
  const href = link.target;
  if (NOT_A_PAGE.test(href) || resolveHref(oldSourcePath, href) !== move.from) return undefined;
  const anchor = href.includes('#') ? href.slice(href.indexOf('#')) : '';
  return `${relativeHref(sourcePath, move.to)}${anchor}`;
}

/**
 * Rewrites the links of one page that point at a moved page: only the targets of the links
 * the scanner finds in the body, so aliases, headings, front-matter and code stay untouched.
 * `sourcePath` is where the page lives after the move.
 */
export function rewriteLinks(content: string, sourcePath: string, oldSourcePath: string, move: LinkRewrite): string {
  let out = '';
  let copied = 0;
  for (const link of scanMarkdown(content, bodyStart(content)).links) {
    // A markdown href can hold a wiki link: once the outer link is rewritten, the inner one is gone.
    const target = link.targetStart >= copied ? newTarget(link, sourcePath, oldSourcePath, move) : undefined;
    if (target === undefined) continue;
    out += content.slice(copied, link.targetStart) + target;
    copied = link.targetEnd;
  }
  return out + content.slice(copied);
}
