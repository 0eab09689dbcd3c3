import { posix } from 'node:path';
import { isFenceLine } from '../page.js';

const WIKI = /(!?\[\[)([^\]\n|#]*)([^\]\n]*\]\])/g;
const MD_LINK = /(!?\[[^\]\n]*\]\()([^)\s]+)((?:\s+"[^"]*")?\))/g;

/** A markdown href from `fromPath`'s folder to `toPath`, segments URI-encoded. */
function relativeHref(fromPath: string, toPath: string): string {
  const rel = posix.relative(posix.dirname(fromPath), toPath);
  return rel.split('/').map((seg) => (seg === '..' ? seg : encodeURIComponent(seg))).join('/');
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

/**
 * Rewrites the links of one page that point at a moved page, leaving aliases, headings
 * and everything inside code untouched. `sourcePath` is where the page lives after the move.
 */
export function rewriteLinks(content: string, sourcePath: string, oldSourcePath: string, move: LinkRewrite): string {
  let inFence = false;
  return content.split('\n').map((line) => {
    if (isFenceLine(line)) { inFence = !inFence; return line; }
    if (inFence) return line;
    // Inline code spans are skipped by splitting them out and rewriting only the rest.
    return line.split(/(`[^`]*`)/).map((part) => (part.startsWith('`') ? part : part
      .replace(WIKI, (all, open: string, target: string, rest: string) =>
        (move.wikiTargets.has(target.trim()) ? `${open}${move.newWikiTarget}${rest}` : all))
      .replace(MD_LINK, (all, open: string, href: string, close: string) => {
        if (/^[a-z][a-z0-9+.-]*:|^#|^\//i.test(href) || resolveHref(oldSourcePath, href) !== move.from) return all;
        const anchor = href.includes('#') ? href.slice(href.indexOf('#')) : '';
        return `${open}${relativeHref(sourcePath, move.to)}${anchor}${close}`;
      }))).join('');
  }).join('\n');
}
