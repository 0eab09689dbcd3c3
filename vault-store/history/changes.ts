import { fileKind, isVaultFilePath, type FileKind } from '../paths.js';
import type { Vault } from '../vault.js';
import type { CommitInfo } from '../git/repo.js';
import { commitMeta } from './commit-meta.js';
import { FirstParentChain } from './first-parent-chain.js';
import { diffFiles, type PathChange } from './tree-diff.js';

export type { PathChange } from './tree-diff.js';

/** A changed file of the feed: a page or an attachment. */
export type FeedPath = PathChange & { kind: FileKind };

export interface Change {
  commit: string;
  at: string;
  actor: string;
  message: string;
  paths: FeedPath[];
}

export interface ChangeFeed {
  /** The head this answer was computed against, captured once at the start of the call. */
  head: string;
  /** The last commit covered; pass it as the next `since`. */
  cursor: string;
  has_more: boolean;
  changes: Change[];
}

export type Visible = (path: string) => boolean;

/** What a caller reads in place of the message of a commit that touched files it cannot read. */
export const HIDDEN_MESSAGE = 'Changes outside your folders';

/**
 * A commit's meta as a caller sees it: the message only when every file the commit changed
 * is visible, since messages name paths ("Move secret/x.md to …") and count files.
 */
function metaFor(commit: CommitInfo, files: PathChange[], visible?: Visible): Omit<Change, 'commit' | 'paths'> {
  // The feed names the actor only; credential ids and names are the history's (issue 13).
  const { at, actor, message } = commitMeta(commit);
  const meta = { at, actor, message };
  return !visible || files.every((c) => visible(c.path)) ? meta : { ...meta, message: HIDDEN_MESSAGE };
}

/**
 * A vault's change feed. It keeps a memo of the first-parent chain (see FirstParentChain),
 * so there is one per vault, held by its Workspace.
 */
export class VaultHistory {
  private readonly chain: FirstParentChain;

  constructor(private readonly vault: Vault) {
    this.chain = new FirstParentChain(vault.repo.objects);
  }

  /**
   * The commits after `since` on the first-parent chain to head, oldest first, at most
   * `limit`, with the pages each one added, modified or deleted (a rename is a delete plus
   * an add). Pages and attachments are listed, each with its `kind`. A commit that changed no (visible) file still counts
   * toward `limit` and is covered by `cursor`, but is left out of `changes`: an agent never
   * learns that hidden pages moved, and paging neither skips nor repeats anything because
   * the cursor is always the last commit examined. A commit that also touched hidden files
   * shows HIDDEN_MESSAGE (see metaFor). Head is read once, so writes landing during the
   * call only show up on the next page.
   */
  async changesSince(input: { since: string; limit: number; visible?: Visible }): Promise<ChangeFeed> {
    const { vault } = this;
    const objects = vault.repo.objects;
    const head = vault.head;
    const { commits, hasMore } = await this.chain.after(input.since, head, input.limit);
    const changes: Change[] = [];
    let parentTree = commits.length ? (await objects.commit(input.since)).tree : null;
    for (const oid of commits) {
      const commit = await objects.commit(oid);
      const files = await diffFiles(vault.repo.trees, parentTree, commit.tree);
      const paths = files
        .filter((c) => isVaultFilePath(c.path) && (!input.visible || input.visible(c.path)))
        .map((c) => ({ ...c, kind: fileKind(c.path) }));
      parentTree = commit.tree;
      if (paths.length) changes.push({ commit: oid, ...metaFor(commit, files, input.visible), paths });
    }
    return { head, cursor: commits.at(-1) ?? input.since, has_more: hasMore, changes };
  }

  /**
   * Every current file (pages and attachments) as an `add` at head: where a device without a cursor starts. It
   * carries head's message, so a caller that cannot read everything gets it only when head
   * changed nothing hidden.
   */
  async snapshot(input: { visible?: Visible } = {}): Promise<ChangeFeed> {
    const { vault } = this;
    // Head and manifest change together, synchronously, after each commit: read both now.
    const head = vault.head;
    const paths: FeedPath[] = [];
    for (const path of vault.manifest.vaultFiles()) {
      if (!input.visible || input.visible(path)) paths.push({ path, op: 'add', hash: vault.manifest.get(path)!.oid, kind: fileKind(path) });
    }
    if (!paths.length) return { head, cursor: head, has_more: false, changes: [] };
    const objects = vault.repo.objects;
    const commit = await objects.commit(head);
    const parent = commit.parents[0];
    const files = input.visible
      ? await diffFiles(vault.repo.trees, parent === undefined ? null : (await objects.commit(parent)).tree, commit.tree)
      : [];
    return { head, cursor: head, has_more: false, changes: [{ commit: head, ...metaFor(commit, files, input.visible), paths }] };
  }

  /** True when `oid` is the vault's head or a first-parent ancestor of it (ack cursors). */
  contains(oid: string): Promise<boolean> {
    return this.chain.contains(oid, this.vault.head);
  }
}
