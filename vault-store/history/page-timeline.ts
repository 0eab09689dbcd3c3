import { QuireError } from '../errors.js';
import type { Vault } from '../vault.js';
import { ChangeIndex, type ChangeIndexOptions } from './change-index.js';
import { activity, deletedPages, pageHistory, type HistoryFilter, type HistoryPage } from './history-queries.js';
import { diffTexts, type TextDiff } from './page-diff.js';
import { findVersion, resolveAt, versionAt, type Version, type Visible } from './page-versions.js';

const decoder = new TextDecoder();
const BLOB = /^[0-9a-f]{40}$/;

/** A page as it was at a point in time. */
export interface PastVersion {
  /** The path it had then (an older name when it was renamed since). */
  path: string;
  hash: string;
  content: Uint8Array;
  /** The commit the point in time resolved to. */
  commit: string;
  /** The commit that wrote this version, and when. */
  changed_in: string;
  changed_at: Date;
}

/** One side of a diff: what `ref` named, and the page's blob there (null: the page did not exist). */
export interface DiffSide {
  ref: string;
  commit: string | null;
  hash: string | null;
  path: string | null;
}

export type PageDiff = { path: string; from: DiffSide; to: DiffSide; identical: boolean } & TextDiff;

/**
 * Pages through time: history, recent activity, versions at a commit or date, diffs and the
 * deleted list, all answered from one ChangeIndex brought to the branch's head per call.
 * Paths arrive validated; `visible` is the caller's read predicate.
 */
export class PageTimeline {
  private readonly index: ChangeIndex;

  /** `options.file`: where the change index is saved between opens (none: rebuilt at each open). */
  constructor(
    private readonly vault: Vault,
    options: ChangeIndexOptions = {},
  ) {
    this.index = new ChangeIndex(vault.repo.objects, options);
  }

  memoryBytes(): number {
    return this.index.memoryBytes();
  }

  /** Saves the change index if it changed since it was last saved. */
  close(): Promise<void> {
    return this.index.close();
  }

  /** A page's history when `path` is given, else the vault's recent activity (see history-queries). */
  async history(input: { path?: string; limit: number; cursor?: string; filter: HistoryFilter; visible: Visible }): Promise<HistoryPage> {
    return this.index.read(await this.branch(), (index) =>
      input.path === undefined ? activity(index, input) : pageHistory(index, { ...input, path: input.path }),
    );
  }

  async deleted(input: { prefix: string; limit: number; cursor?: string; visible: Visible }) {
    return this.index.read(await this.branch(), (index) => deletedPages(index, input));
  }

  /**
   * The page at `path` as it was at `at`: a commit or date (see resolveAt), or the hash of one
   * of its versions (a deleted page's last_hash). NOT_FOUND when it did not exist then.
   */
  async versionAt(path: string, at: string, visible: Visible): Promise<PastVersion> {
    const found = await this.index.read(await this.branch(), (index) => {
      let version: Version | undefined;
      let commit: string;
      if (BLOB.test(at) && index.positionOf(at) === undefined) {
        version = findVersion(index, path, at, visible);
        if (!version) throw new QuireError('NOT_FOUND', `No commit or version ${at} of ${path}`, { path, at });
        commit = index.commit(version.position).oid;
      } else {
        const position = resolveAt(index, at);
        version = versionAt(index, path, position, visible);
        commit = index.commit(position).oid;
        if (!version) throw new QuireError('NOT_FOUND', `No page at ${path} at commit ${commit}`, { path, at, commit });
      }
      const writer = index.commit(version.position);
      return { path: version.path, hash: version.change.hash!, commit, changed_in: writer.oid, changed_at: new Date(writer.time) };
    });
    return { ...found, content: await this.vault.repo.objects.blob(found.hash) };
  }

  /**
   * The diff of the page at `path` between two versions, each a commit (id, abbreviation or
   * date, see resolveAt) or a blob hash. A blob must be a version of this page (renames
   * followed): that is how a diff across two different pages is told apart, and refused.
   */
  async diff(input: { path: string; from: string; to?: string; visible: Visible }): Promise<PageDiff> {
    const { path, visible } = input;
    const [from, to] = await this.index.read(await this.branch(), (index) => {
      const side = (ref: string): DiffSide => {
        if (BLOB.test(ref) && index.positionOf(ref) === undefined) {
          const version = findVersion(index, path, ref, visible);
          if (version) return { ref, commit: null, hash: ref, path: version.path };
          const elsewhere = [...index.paths()].some(
            (p) => visible(p) && index.positionsOf(p).some((i) => index.changeOf(i, p)!.hash === ref),
          );
          if (elsewhere) throw new QuireError('INVALID_REQUEST', `${ref} is a version of another page, not of ${path}`, { path, ref });
          throw new QuireError('NOT_FOUND', `No commit or version ${ref} of ${path}`, { path, ref });
        }
        const position = /^head$/i.test(ref) ? index.length - 1 : resolveAt(index, ref);
        const version = versionAt(index, path, position, visible);
        return { ref, commit: index.commit(position).oid, hash: version?.change.hash ?? null, path: version?.path ?? null };
      };
      return [side(input.from), side(input.to ?? 'HEAD')];
    });
    if (from.hash === null && to.hash === null) {
      throw new QuireError('NOT_FOUND', `No page at ${path} at either version`, { path, from: input.from, to: input.to ?? 'HEAD' });
    }
    const [before, after] = await Promise.all([this.text(from.hash), this.text(to.hash)]);
    const names = { oldName: from.path ? `a/${from.path}` : '/dev/null', newName: to.path ? `b/${to.path}` : '/dev/null' };
    return { path, from, to, identical: from.hash === to.hash, ...diffTexts({ ...names, before, after }) };
  }

  /**
   * The branch as git has it now, not the head the vault last followed: a commit made in the
   * folder a moment ago is history already (one small file read).
   */
  private branch(): Promise<string> {
    return this.vault.repo.head();
  }

  private async text(hash: string | null): Promise<string> {
    return hash === null ? '' : decoder.decode(await this.vault.repo.objects.blob(hash));
  }
}
