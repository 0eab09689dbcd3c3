import { randomBytes } from 'node:crypto';
import { QuireError } from '../errors.js';
import { unifiedDiff } from '../diff/unified-diff.js';
import { hashBlob } from '../git/hash-blob.js';
import { Pages } from '../pages.js';
import type { Author, FileChange, Vault } from '../vault.js';
import { mergeChange, type Resolution } from './merge-change.js';
import type { Actor, ProposalInput, ProposalRecord, ProposalStatus } from './proposal.js';
import { ProposalRefs } from './proposal-refs.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface ProposalOptions {
  now?: () => Date;
}

/** One change of a proposal as `get` shows it: against the page as it is now. */
export interface ChangeView {
  path: string;
  delete?: true;
  base_hash: string | null;
  current_hash: string | null;
  /** `clean`: the page is still at base_hash; `merge`: it moved but the edits don't overlap; `conflict`: they do. */
  applies: Resolution['applies'];
  diff: string;
}

export interface ProposalDetail extends ProposalRecord {
  applies: Resolution['applies'];
  diffs: ChangeView[];
}

function actorOf(author: Author): Actor {
  const t = author.trailers ?? {};
  return {
    name: author.name,
    ...(t['Quire-Agent'] ? { agent: t['Quire-Agent'] } : {}),
    ...(t['Quire-Actor'] ? { actor: t['Quire-Actor'] } : {}),
    ...(t['Quire-Credential'] ? { credential: t['Quire-Credential'] } : {}),
  };
}

const worst = (list: Resolution['applies'][]): Resolution['applies'] =>
  list.includes('conflict') ? 'conflict' : list.includes('merge') ? 'merge' : 'clean';

/**
 * Changes an agent would like to make, held for the owner's decision. Stored in the vault's
 * git repo (see ProposalRefs) and applied, when approved, as one commit on main inside the
 * write queue. A proposal whose every path the caller cannot see behaves as absent. One per
 * vault (its Workspace's), so the record cache is shared.
 */
export class Proposals {
  private readonly refs: ProposalRefs;
  private readonly pages: Pages;
  private readonly now: () => Date;

  constructor(
    private readonly vault: Vault,
    options: ProposalOptions = {},
  ) {
    this.refs = new ProposalRefs(vault.repo);
    this.pages = new Pages(vault);
    this.now = options.now ?? (() => new Date());
  }

  create(author: Author, input: ProposalInput): Promise<ProposalRecord> {
    return this.vault.exclusive(async () => {
      const at = this.now();
      const id = `${at.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;
      const contents = new Map<string, Uint8Array>();
      const seen = new Set<string>();
      const changes = input.changes.map((change) => {
        if (seen.has(change.path))
          throw new QuireError('INVALID_REQUEST', `${change.path} appears twice in one proposal`, { field: 'changes', path: change.path });
        seen.add(change.path);
        const current = this.vault.manifest.get(change.path)?.oid ?? null;
        this.vault.expectHash(change.path, change.base_hash);
        if (change.delete) {
          if (current === null) throw new QuireError('NOT_FOUND', `No page at ${change.path} to delete`, { path: change.path });
          return { path: change.path, delete: true as const, base_hash: current };
        }
        this.pages.checkNewPath(change.path);
        const bytes = encoder.encode(change.content ?? '');
        contents.set(change.path, bytes);
        return { path: change.path, hash: hashBlob(bytes), base_hash: current };
      });
      const record: ProposalRecord = {
        id,
        title: input.title,
        rationale: input.rationale,
        status: 'pending',
        created_at: at.toISOString(),
        created_by: actorOf(author),
        base_commit: this.vault.head,
        changes,
      };
      await this.refs.write(record, contents, { message: `Propose: ${input.title}`, author, when: at });
      return record;
    });
  }

  /** Newest first. */
  async list(options: { status?: ProposalStatus; visible?: (path: string) => boolean } = {}): Promise<ProposalRecord[]> {
    const records = await Promise.all((await this.refs.ids()).map((id) => this.refs.read(id)));
    return records
      .filter(
        (r): r is ProposalRecord => r !== undefined && (!options.status || r.status === options.status) && this.canSee(r, options.visible),
      )
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
  }

  /** The record with a unified diff per change against the current page, and whether it still applies. */
  async get(id: string, visible?: (path: string) => boolean): Promise<ProposalDetail> {
    const record = await this.require(id, visible);
    const diffs = await Promise.all(
      record.changes.map(async (change): Promise<ChangeView> => {
        const resolution = await mergeChange(this.vault, this.refs, change);
        const current = await this.vault.readFile(change.path);
        const before = current ? decoder.decode(current.content) : null;
        const after = change.delete ? null : decoder.decode(await this.refs.content(change.hash!));
        return {
          path: change.path,
          ...(change.delete ? { delete: true as const } : {}),
          base_hash: change.base_hash,
          current_hash: current?.oid ?? null,
          applies: resolution.applies,
          diff: unifiedDiff(change.path, before, after),
        };
      }),
    );
    return { ...record, applies: record.status === 'pending' ? worst(diffs.map((d) => d.applies)) : 'clean', diffs };
  }

  /**
   * Applies every change in one commit on main, or none: inside the write queue, after
   * committing any unnoticed working-tree edit to those pages, each change must still be at
   * its base (or merge cleanly with what moved). Otherwise CONFLICT with each conflicting
   * path's current hash, and the proposal stays pending.
   */
  approve(author: Author, id: string): Promise<ProposalRecord> {
    return this.vault.exclusive(async () => {
      const record = await this.requirePending(id);
      await this.vault.reconcile(record.changes.map((c) => c.path));
      const resolutions = await Promise.all(record.changes.map((change) => mergeChange(this.vault, this.refs, change)));
      const files: FileChange[] = [];
      const conflicts: { path: string; base_hash: string | null; current_hash: string | null; merge?: string }[] = [];
      record.changes.forEach((change, i) => {
        const resolution = resolutions[i];
        if (resolution.applies !== 'conflict') files.push({ path: change.path, content: resolution.content });
        else
          conflicts.push({
            path: change.path,
            base_hash: change.base_hash,
            current_hash: this.vault.manifest.get(change.path)?.oid ?? null,
            ...(resolution.merge !== undefined ? { merge: resolution.merge } : {}),
          });
      });
      if (conflicts.length) {
        throw new QuireError(
          'CONFLICT',
          `Proposal ${id} no longer applies: ${conflicts.map((c) => c.path).join(', ')} changed since it was made`,
          { conflicts, current_hash: conflicts[0].current_hash },
        );
      }
      for (const change of record.changes) if (!change.delete) this.pages.checkNewPath(change.path);
      const proposer = record.created_by.agent ?? record.created_by.actor ?? record.created_by.name;
      const trailers = { ...author.trailers, 'Quire-Proposal': id, 'Quire-Proposed-By': proposer };
      const event = await this.vault.commitChanges({ ...author, trailers }, `Apply proposal ${id}: ${record.title}`, files);
      return this.decide(record, author, { status: 'approved', commit: event?.commit ?? null });
    });
  }

  reject(author: Author, id: string, reason?: string): Promise<ProposalRecord> {
    return this.vault.exclusive(async () =>
      this.decide(await this.requirePending(id), author, { status: 'rejected', ...(reason ? { reason } : {}) }),
    );
  }

  private async decide(record: ProposalRecord, author: Author, outcome: Partial<ProposalRecord>): Promise<ProposalRecord> {
    const at = this.now();
    const decided: ProposalRecord = { ...record, ...outcome, decided_at: at.toISOString(), decided_by: actorOf(author) };
    await this.refs.write(decided, new Map(), {
      message: `${decided.status === 'approved' ? 'Approve' : 'Reject'}: ${record.title}`,
      author,
      when: at,
    });
    return decided;
  }

  private canSee(record: ProposalRecord, visible?: (path: string) => boolean): boolean {
    return !visible || record.changes.every((c) => visible(c.path));
  }

  private async require(id: string, visible?: (path: string) => boolean): Promise<ProposalRecord> {
    const record = /^[0-9a-z-]{1,64}$/.test(id) ? await this.refs.read(id) : undefined;
    if (!record || !this.canSee(record, visible)) throw new QuireError('NOT_FOUND', `No proposal ${id}`, { id });
    return record;
  }

  private async requirePending(id: string): Promise<ProposalRecord> {
    const record = await this.require(id);
    if (record.status !== 'pending')
      throw new QuireError('CONFLICT', `Proposal ${id} is already ${record.status}`, { id, status: record.status });
    return record;
  }
}
