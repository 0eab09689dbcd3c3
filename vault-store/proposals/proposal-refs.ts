import type { GitRepo, Signature } from '../git/repo.js';
import { EMPTY_TREE } from '../git/tree-store.js';
import type { ProposalRecord } from './proposal.js';

export const PROPOSALS_REF = 'refs/quire/proposals';
const RECORD = 'proposal.json';
/** Proposed contents live under this folder of the proposal's tree, at their page path. */
const FILES = 'files/';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Proposals as commits on `refs/quire/proposals/<id>`: each commit's tree holds the record
 * and the proposed contents, and every status change is a child commit, so the ref's log
 * is the proposal's history. Outside `refs/heads`, they are not in the working tree, not
 * fetched by a default clone and not in exports. Callers hold the vault's write queue.
 */
export class ProposalRefs {
  /** Commit id → record; commits never change, so entries never go stale. */
  private readonly records = new Map<string, ProposalRecord>();

  constructor(private readonly repo: GitRepo) {}

  async ids(): Promise<string[]> {
    const ids = await this.repo.listRefs(PROPOSALS_REF);
    return ids.filter((id) => !id.includes('/') && !id.startsWith('.'));
  }

  async read(id: string): Promise<ProposalRecord | undefined> {
    const commit = await this.repo.resolveRef(`${PROPOSALS_REF}/${id}`);
    if (!commit) return undefined;
    const cached = this.records.get(commit);
    if (cached) return cached;
    const { tree } = await this.repo.objects.commit(commit);
    const oid = await this.repo.trees.lookup(tree, RECORD);
    if (!oid) return undefined;
    const record = JSON.parse(decoder.decode(await this.repo.objects.blob(oid))) as ProposalRecord;
    this.records.set(commit, record);
    return record;
  }

  /** The proposed content of one change, from the proposal's own objects. */
  async content(hash: string): Promise<Uint8Array> {
    return this.repo.objects.blob(hash);
  }

  /** Stores the record (and, on creation, the proposed contents) and moves the ref to it. */
  async write(
    record: ProposalRecord,
    contents: Map<string, Uint8Array>,
    commit: { message: string; author: Signature; when: Date },
  ): Promise<void> {
    const ref = `${PROPOSALS_REF}/${record.id}`;
    const parent = await this.repo.resolveRef(ref);
    const base = parent ? (await this.repo.objects.commit(parent)).tree : EMPTY_TREE;
    const entries = [{ path: RECORD, oid: await this.repo.writeBlob(encoder.encode(`${JSON.stringify(record, null, 2)}\n`)) }];
    for (const [path, bytes] of contents) entries.push({ path: FILES + path, oid: await this.repo.writeBlob(bytes) });
    const tree = await this.repo.trees.apply(base, entries);
    const oid = await this.repo.commit({ tree, parents: parent ? [parent] : [], ...commit });
    // As the branch ref: temp file, fsync, rename, so a crash leaves the old or the new commit.
    await this.repo.moveRef(oid, ref);
    this.records.set(oid, record);
  }
}
