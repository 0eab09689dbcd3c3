import type { CommitInfo } from '../../git/object-reader.js';
import { diffPages } from '../../history/tree-diff.js';
import type { CommitEvent, Vault } from '../../vault.js';

/**
 * `created_at` and `updated_at` of pages, for queries. `updated_at` is what a page read
 * answers (`Vault.updatedAt`: the commit time for pages committed since open, else the file's
 * mtime, else the head commit's time), kept by the manifest once looked up. `created_at` is
 * the time of the commit that added the page at its path, from the first-parent history
 * walked back from head once, on the first query that names it (a move is a new path, so a
 * new creation), then kept in step by commits. Not persisted: history is the truth.
 */
export class PageDates {
  private created: Promise<Map<string, string>> | undefined;
  /** Commits heard while the history walk runs, applied when it ends. */
  private heard: CommitEvent[] | undefined;

  constructor(private readonly vault: Vault) {}

  async updatedAt(paths: string[]): Promise<Map<string, string>> {
    const dates = new Map<string, string>();
    for (const path of paths) dates.set(path, (await this.vault.updatedAt(path).catch(() => new Date(0))).toISOString());
    return dates;
  }

  createdAt(): Promise<Map<string, string>> {
    return (this.created ??= this.walk());
  }

  /** A commit listener: pages added get the commit's time, pages deleted lose theirs. */
  follow(event: CommitEvent): void {
    if (this.heard) this.heard.push(event);
    else if (this.created) void this.created.then((dates) => apply(dates, event));
  }

  private async walk(): Promise<Map<string, string>> {
    this.heard = [];
    try {
      const { vault } = this;
      const undated = new Set(vault.manifest.pages());
      const dates = new Map<string, string>();
      let commit: CommitInfo | undefined = await vault.repo.objects.commit(vault.head);
      while (commit && undated.size > 0) {
        const parent: CommitInfo | undefined = commit.parents.length ? await vault.repo.objects.commit(commit.parents[0]) : undefined;
        const at = new Date(commit.author.timestamp * 1000).toISOString();
        for (const change of await diffPages(vault.repo.trees, parent?.tree ?? null, commit.tree)) {
          if (change.op === 'add' && undated.delete(change.path)) dates.set(change.path, at);
        }
        commit = parent;
      }
      for (const event of this.heard) apply(dates, event);
      return dates;
    } catch (err) {
      this.created = undefined;
      throw err;
    } finally {
      this.heard = undefined;
    }
  }
}

function apply(dates: Map<string, string>, event: CommitEvent): void {
  for (const change of event.changes) {
    if (change.oid === null) dates.delete(change.path);
    else if (!dates.has(change.path)) dates.set(change.path, event.at.toISOString());
  }
}
