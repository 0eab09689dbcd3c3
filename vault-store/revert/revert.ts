import type { Author, Vault } from '../vault.js';
import { QuireError } from '../errors.js';
import { commitMeta, madeBy } from '../history/commit-meta.js';
import { planRevert, type RevertPlan } from './revert-plan.js';
import { sessionChanges, sessionCommits, type SessionChanges } from './session-changes.js';

/** Whose changes to undo: an agent's, an API key's or an app's (by name or credential id), or one commit. */
export type RevertTarget = { by: { agent: string } | { key: string } | { app: string }; since: Date; until?: Date } | { commit: string };

export interface RevertRequest {
  target: RevertTarget;
  /** Compute the plan only. */
  dryRun: boolean;
  /** Paths the caller may read; others are left out as if unchanged (agents). */
  visible?: (path: string) => boolean;
  /** Paths the caller may write; readable others are skipped (agents). */
  writable?: (path: string) => boolean;
  /** True when a commit is on the branch's first-parent history. */
  inHistory: (commit: string) => Promise<boolean>;
}

export interface RevertResult extends RevertPlan {
  dry_run: boolean;
  /** The commits undone, newest first. */
  commits: string[];
  /** The one commit that undid them; null for a dry run or when there was nothing to do. */
  commit: string | null;
}

const everything = () => true;

function describe(target: RevertTarget, subject: string | undefined): string {
  if ('commit' in target) return `Revert ${target.commit.slice(0, 12)}${subject ? `: ${subject}` : ''}`;
  const [kind, name] = Object.entries(target.by)[0] as [string, string];
  const until = target.until ? ` to ${target.until.toISOString()}` : '';
  return `Revert changes by ${kind} ${name} from ${target.since.toISOString()}${until}`;
}

/**
 * Undoes a session (every commit one credential made in a window) or one commit, page by
 * page, three-way, so edits others made since are kept (see planRevert). A dry run plans
 * against the current head without entering the write queue; applying plans again inside
 * it, after committing unnoticed folder edits to those paths, and lands one commit (none
 * when nothing changes).
 */
export async function revert(vault: Vault, author: Author, request: RevertRequest): Promise<RevertResult> {
  const visible = request.visible ?? everything;
  const writable = request.writable ?? everything;
  const { target } = request;
  if ('commit' in target && !(await request.inHistory(target.commit))) {
    throw new QuireError('NOT_FOUND', `No commit ${target.commit} in this vault's history`, { commit: target.commit });
  }
  const changes = async (): Promise<SessionChanges & { subject?: string }> => {
    const { objects, trees } = vault.repo;
    const commits =
      'commit' in target
        ? [await objects.commit(target.commit)]
        : await sessionCommits(objects, vault.head, {
            matches: (meta) => madeBy(meta, target.by),
            since: target.since,
            until: target.until,
          });
    // The message of the commit undone may name pages a limited caller cannot read.
    const subject = 'commit' in target && !request.visible ? commitMeta(commits[0]).message.split('\n')[0] : undefined;
    return { ...(await sessionChanges(trees, objects, commits, visible)), subject };
  };
  const plan = (found: SessionChanges) =>
    planRevert(vault.repo.objects, found.runs, (path) => vault.manifest.get(path)?.oid ?? null, writable);

  if (request.dryRun) {
    const found = await changes();
    return { dry_run: true, commits: found.commits, commit: null, ...(await plan(found)).plan };
  }
  return vault.exclusive(async () => {
    const found = await changes();
    // Folder edits to these pages not committed yet are committed first, so they count as ours.
    await vault.reconcile([...found.runs.keys()]);
    const { plan: result, files } = await plan(found);
    const event = files.length ? await vault.commitChanges(author, describe(target, found.subject), files) : undefined;
    return { dry_run: false, commits: found.commits, commit: event?.commit ?? null, ...result };
  });
}
