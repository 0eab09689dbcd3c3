import type { PageLink } from '../../page.js';
import { pageLinks, type PageMeta } from '../page-meta.js';
import { attachmentTarget, mayLinkAttachment, nameKey } from './link-query.js';

/** A link from a page to an attachment, as written, with the file it resolves to (or null). */
export interface AttachmentLink {
  source: string;
  target: string;
  kind: PageLink['kind'];
  line: number;
  resolved: string | null;
}

function fileName(path: string): string {
  return nameKey(path.slice(path.lastIndexOf('/') + 1));
}

/** Shortest path first, then code-point order, as pages are preferred (name-index.ts). */
function byPreference(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Where links to attachments point, resolved as Obsidian resolves them: a markdown link
 * names a vault path (made vault-relative by page.ts); a wiki link or embed names a file
 * anywhere (`[[diagram.png]]`) or by path suffix (`[[img/diagram.png]]`), case-insensitively,
 * preferring the exact path, then the source's own folder, then the shortest path. Built per
 * call from the attachment list (lint and health walk the whole vault anyway): nothing to keep
 * in step with writes.
 */
export class AttachmentIndex {
  private readonly exact: Set<string>;
  private readonly byName = new Map<string, string[]>();

  constructor(attachments: readonly string[]) {
    this.exact = new Set(attachments);
    for (const path of attachments) {
      const key = fileName(path);
      const list = this.byName.get(key);
      if (list) list.push(path);
      else this.byName.set(key, [path]);
    }
    for (const list of this.byName.values()) list.sort(byPreference);
  }

  /** The links of `page` that point at attachments, each resolved. */
  linksOf(page: PageMeta): AttachmentLink[] {
    const found: AttachmentLink[] = [];
    if (!mayLinkAttachment(page.packedLinks)) return found;
    for (const link of pageLinks(page)) {
      const target = attachmentTarget(link);
      if (target === undefined) continue;
      const resolved = link.kind === 'markdown' ? (this.exact.has(target) ? target : null) : this.byWikiName(target, page.path);
      found.push({ source: page.path, target: link.target, kind: link.kind, line: link.line, resolved });
    }
    return found;
  }

  private byWikiName(target: string, source: string): string | null {
    if (this.exact.has(target)) return target;
    const wanted = nameKey(target);
    const named = (this.byName.get(fileName(target)) ?? []).filter((p) => {
      const key = nameKey(p);
      return key === wanted || key.endsWith(`/${wanted}`);
    });
    const folder = source.slice(0, source.lastIndexOf('/') + 1);
    return named.find((p) => p.lastIndexOf('/') + 1 === folder.length && p.startsWith(folder)) ?? named[0] ?? null;
  }
}

/** The attachments no page of `pages` links to or embeds (resolved as `AttachmentIndex` does). */
export function unreferencedAttachments(pages: Iterable<PageMeta>, attachments: readonly string[]): number {
  const index = new AttachmentIndex(attachments);
  const used = new Set<string>();
  for (const page of pages) for (const link of index.linksOf(page)) if (link.resolved !== null) used.add(link.resolved);
  return attachments.length - used.size;
}
