import { QuireError } from '../errors.js';
import type { LinkGraph } from '../knowledge/graph/link-graph.js';
import type { Pages } from '../pages.js';
import { checkPortablePath } from '../paths.js';
import { Slices, SLICE_MS } from '../slices.js';
import type { Author, FileChange } from '../vault.js';
import { rewriteLinks } from './rewrite-links.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1, -'.md'.length);
}

/** Who moves: what they may change, and, for a caller that cannot read every page, what it can. */
export interface MoveCaller {
  /** Throws when the caller may not change one of these paths (e.g. an agent's write prefixes). */
  assertWritable?: (paths: string[]) => void;
  /**
   * Only for a caller limited to some pages. Pages it rejects keep their links as written
   * (as if the caller had deleted the page and created another), and rewritten wiki links
   * name the full path: whether a hidden page shares the name must not show in the result.
   */
  visible?: (path: string) => boolean;
}

/**
 * Moves a page and rewrites every link to it in the same commit, so the vault never has a
 * moment of broken links. Wiki links keep the bare name when it stays unambiguous.
 */
export async function movePage(
  pages: Pages,
  graph: LinkGraph,
  author: Author,
  input: { from: string; to: string; baseHash?: string | null },
  caller: MoveCaller = {},
) {
  const { assertWritable = () => undefined, visible = () => true } = caller;
  const { vault } = pages;
  const { from, to } = input;
  if (from === to) throw new QuireError('INVALID_REQUEST', 'from and to are the same path', { field: 'to' });
  return vault.exclusive(async () => {
    // Unnoticed edits in the working tree to any page this move rewrites are committed first,
    // so the move plans from them instead of reverting them.
    await vault.reconcile([from, to, ...graph.backlinks(from).filter(visible)]);
    const source = await vault.readFile(from);
    if (!source) throw new QuireError('NOT_FOUND', `No page at ${from}`, { path: from });
    vault.expectHash(from, input.baseHash);
    const existing = vault.manifest.get(to);
    if (existing) throw new QuireError('CONFLICT', `${to} already exists`, { path: to, current_hash: existing.oid });
    checkPortablePath(to);
    const twin = vault.manifest.caseTwin(to);
    if (twin && twin !== from)
      throw new QuireError('CASE_COLLISION', `${to} differs only in case from existing page ${twin}`, { path: to, existing_path: twin });

    const newName = nameOf(to);
    const qualify =
      caller.visible !== undefined || vault.manifest.pages().some((p) => p !== from && nameOf(p).toLowerCase() === newName.toLowerCase());
    const newWikiTarget = qualify ? to.slice(0, -'.md'.length) : newName;
    const changes: FileChange[] = [{ path: from, content: null }];
    let movedContent = decoder.decode(source.content);
    const rewritten: string[] = [];
    // Turns between linking pages (the first after the reconcile above, which read them all).
    const slices = new Slices(SLICE_MS, true);
    for (const linker of new Set([
      ...graph.backlinks(from).filter(visible),
      ...(graph.links(from).some((l) => l.resolved === from) ? [from] : []),
    ])) {
      const wikiTargets = new Set(
        graph
          .links(linker)
          .filter((l) => l.resolved === from && l.kind === 'wiki')
          .map((l) => l.target),
      );
      await slices.pause();
      const newPath = linker === from ? to : linker;
      const before = linker === from ? movedContent : decoder.decode((await vault.readFile(linker))!.content);
      const after = rewriteLinks(before, newPath, linker, { from, to, wikiTargets, newWikiTarget });
      if (linker === from) movedContent = after;
      else if (after !== before) {
        changes.push({ path: linker, content: encoder.encode(after) });
        rewritten.push(linker);
      }
    }
    // Relative markdown links inside the moved page itself point elsewhere from its new folder.
    changes.push({ path: to, content: encoder.encode(movedContent) });
    assertWritable(changes.map((c) => c.path));
    // Recorded, so history follows the rename even when the moved page's own links changed.
    const trailers = { ...author.trailers, 'Quire-Moved-From': from, 'Quire-Moved-To': to };
    const event = await vault.commitChanges({ ...author, trailers }, `Move ${from} to ${to}`, changes);
    return { from, to, commit: event!.commit, hash: event!.changes.find((c) => c.path === to)!.oid!, rewritten };
  });
}
