import type { PageLink } from '../../page.js';

/**
 * How one link looks a page up. Every query carries `key`, the lower-cased file name it
 * depends on: only pages (or aliases) with that name can change where the link points,
 * which is what keeps graph updates local.
 */
export type LinkQuery =
  /** Wiki link: by file name anywhere, or by "folder/name" path suffix when `suffix` is set. */
  | { by: 'name'; key: string; suffix?: string }
  /** Markdown link: a vault-relative page path (page.ts resolved the relative href). */
  | { by: 'path'; key: string; path: string };

// Wiki links to these are embeds of attachments, not pages; the graph holds pages only.
const ATTACHMENT =
  /\.(?:png|jpe?g|gif|bmp|svg|webp|avif|ico|tiff?|pdf|mp3|wav|ogg|m4a|flac|aac|webm|mp4|mov|mkv|ogv|avi|canvas|base|excalidraw|zip|csv|json|txt|html?)$/i;
// Markdown links name files exactly, so any extension but .md means "not a page".
const EXTENSION = /\.[A-Za-z0-9]{1,8}$/;

/**
 * In a page's packed links (page-meta.ts: JSON strings), a target ending in an extension
 * other than ".md": a page with none links to no attachment. A test on the packed string,
 * so the views that look for attachment links over the whole vault parse only the few pages
 * that have one (10k pages: 125 ms parsing them all).
 */
const NAMES_FILE = /\.(?!md\s*")[A-Za-z0-9]{1,8}\s*"/i;

/** False when no link in `packedLinks` can point at an attachment (`attachmentTarget`); true may be a false alarm. */
export function mayLinkAttachment(packedLinks: string): boolean {
  return NAMES_FILE.test(packedLinks);
}

/** Obsidian compares names case-insensitively; NFC so typed NFD names match NFC paths. */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** The key of a page path: its lower-cased file name without ".md". */
export function pageKey(path: string): string {
  return nameKey(path.slice(path.lastIndexOf('/') + 1, -'.md'.length));
}

/**
 * The file a link names when it points at an attachment rather than a page (an embed
 * `![[diagram.png]]`, `![](img/a.png)`, a link to a PDF): the name as written, NFC, or undefined.
 */
export function attachmentTarget(link: PageLink): string | undefined {
  const target = link.target.normalize('NFC').trim();
  if (link.kind === 'markdown') return EXTENSION.test(target) && !target.endsWith('.md') ? target : undefined;
  return ATTACHMENT.test(target) ? target.replace(/^\/+/, '') : undefined;
}

/** The lookup a link performs, or undefined when it does not point at a page. */
export function linkQuery(link: PageLink): LinkQuery | undefined {
  const target = link.target.normalize('NFC').trim();
  if (link.kind === 'markdown') {
    if (target.endsWith('/')) return undefined;
    if (target.endsWith('.md')) return { by: 'path', key: pageKey(target), path: target };
    if (EXTENSION.test(target)) return undefined;
    return { by: 'path', key: pageKey(`${target}.md`), path: `${target}.md` };
  }
  if (ATTACHMENT.test(target)) return undefined;
  // "[[/folder/Note.md]]" and "[[folder/Note]]" name the same page.
  const name = nameKey(target.replace(/\.md$/i, '').replace(/^\/+/, ''));
  const slash = name.lastIndexOf('/');
  if (slash < 0) return name ? { by: 'name', key: name } : undefined;
  const key = name.slice(slash + 1);
  return key ? { by: 'name', key, suffix: name } : undefined;
}
