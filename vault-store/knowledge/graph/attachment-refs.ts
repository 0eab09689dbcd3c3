import type { PageMeta } from '../page-meta.js';
import { AttachmentIndex } from './attachment-links.js';
import type { GraphEdge, LinkKind } from './link-graph.js';

/**
 * Which pages link to or embed which attachments, resolved as `AttachmentIndex` resolves
 * them, over the pages and attachments a caller sees. Built per request from the pages'
 * metadata: the packed page graph keeps no attachment (its arenas hold pages only), and an
 * attachment, a leaf that links nowhere, is never a step of its traversals.
 */
export class AttachmentRefs {
  /** Page → the attachments it reaches, with the kind of its first link to each. */
  private readonly from = new Map<string, Map<string, LinkKind>>();
  /** Attachment → the pages that reach it, sorted. */
  private readonly to = new Map<string, string[]>();
  private readonly known: Set<string>;

  /** `attachments`: the vault's attachment paths the caller may see; `pages`: the pages it may see. */
  constructor(metas: ReadonlyMap<string, PageMeta>, pages: Iterable<string>, attachments: readonly string[]) {
    this.known = new Set(attachments);
    if (attachments.length === 0) return;
    const index = new AttachmentIndex(attachments);
    for (const path of pages) {
      for (const link of index.linksOf(metas.get(path)!)) {
        if (link.resolved === null) continue;
        let targets = this.from.get(path);
        if (!targets) this.from.set(path, (targets = new Map()));
        if (targets.has(link.resolved)) continue;
        targets.set(link.resolved, link.kind);
        const sources = this.to.get(link.resolved);
        if (sources) sources.push(path);
        else this.to.set(link.resolved, [path]);
      }
    }
    for (const sources of this.to.values()) sources.sort();
  }

  /** True for an attachment of the vault the caller may see. */
  has(path: string): boolean {
    return this.known.has(path);
  }

  /** Attachments some page links to or embeds, sorted. */
  referenced(): string[] {
    return [...this.to.keys()].sort();
  }

  /** The pages linking to or embedding `attachment`, sorted. */
  sources(attachment: string): readonly string[] {
    return this.to.get(attachment) ?? [];
  }

  /** The attachments `page` links to or embeds, sorted. */
  targets(page: string): string[] {
    return [...(this.from.get(page)?.keys() ?? [])].sort();
  }

  /** An edge from `page` to each attachment it reaches, sorted by target. */
  edgesFrom(page: string): GraphEdge[] {
    return this.targets(page).map((target) => ({ source: page, target, kind: this.from.get(page)!.get(target)! }));
  }
}
