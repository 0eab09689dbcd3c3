import { digestLocal, scanLocal, type LocalFile } from './local-tree.js';
import { planPath, type Action } from './plan.js';
import type { PassContext, PassResult } from './pass-context.js';
import { SyncError } from './sync-error.js';

/**
 * One sync pass: bring the server's side up to date (the change log since the cursor, or a
 * full snapshot the first time and after a 410), scan the folder, plan each path that
 * differs from its base (plan.ts), do it, and acknowledge the cursor. Every step is recorded
 * in the state's journal as it lands.
 */
export async function runPass(ctx: PassContext): Promise<PassResult> {
  const { state, remote } = ctx;
  const result: PassResult = { downloaded: 0, uploaded: 0, deleted: 0, merged: 0, conflicts: [], refused: 0, pending: 0 };
  const cursorBefore = state.cursor;
  // Independent: the folder is scanned while the server answers.
  const refreshing = refreshRemote(ctx);
  refreshing.catch(() => undefined); // awaited below
  const accepts = (path: string) => remote.accepts(path);
  // A folder saved in agreement, with its files' digest: when the folder still has that digest
  // and the server nothing new, there is nothing to do, and the saved rows are never parsed.
  if (state.savedScan !== undefined && state.agreed && !state.unsaved && state.cursor === state.acked) {
    const digest = digestLocal(ctx.dir, accepts);
    await refreshing;
    if (digest === state.savedScan && state.agreed && state.cursor === cursorBefore) return result;
  }
  const scan = scanLocal(ctx.dir, accepts, state.stat);
  await refreshing;
  const { rules } = scan;
  const actions: Action[] = [];
  // Nothing new on either side of a folder in agreement: no path to compare (the usual idle run).
  const idle = state.agreed && state.cursor === cursorBefore && scan.cacheUpdates === 0 && scan.busy.size === 0;
  if (!idle) state.agreed = false;
  const consider = (path: string, local: string | undefined) => {
    const action = planPath(path, state.base.get(path), local, state.remote.get(path));
    if (!action || scan.busy.has(path) || rules.ignores(path) || !remote.accepts(path)) return;
    const sends = action.kind === 'upload' || action.kind === 'delete-remote' || action.kind === 'resolve';
    if (sends && local !== undefined && state.refused.get(path) === local) return; // reported when refused
    actions.push(action);
  };
  // Every path known to either side, each once (without a set of them all: an idle run's
  // 10,000 paths would be added to it three times over).
  if (!idle) {
    for (const [path, file] of scan.files) consider(path, file.hash);
    for (const path of state.base.keys()) if (!scan.files.has(path)) consider(path, undefined);
    for (const path of state.remote.keys()) if (!scan.files.has(path) && !state.base.has(path)) consider(path, undefined);
    for (const path of state.refused.keys()) if (!scan.files.has(path)) state.set('refused', path, null);
  }
  result.pending += scan.busy.size;
  if (actions.length) await runSteps(ctx, actions, scan.files, result);
  state.flush();
  if (state.cursor && state.cursor !== state.acked) await acknowledge(ctx);
  if (actions.length || state.cursor !== cursorBefore || scan.cacheUpdates > 0 || state.unsaved) await state.checkpoint();
  return result;
}

/**
 * The steps' modules (local writes, the merge bases, atomic files), loaded when a pass has
 * work: they are a fifth of the modules an idle CLI run would otherwise load for nothing.
 * Under the test runner modules are CommonJS, and `import()` would load second copies of
 * everything the steps reach (their error classes failing `instanceof`): `require` loads the
 * same ones, as in server/app.ts.
 */
function loadSteps(): Promise<typeof import('./steps.js')> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return typeof require === 'function' ? Promise.resolve(require('./steps.js')) : import('./steps.js');
}

/** The planned steps, in order: agreements, downloads, local deletions, uploads, then what changed on both sides. */
async function runSteps(ctx: PassContext, actions: Action[], local: Map<string, LocalFile>, result: PassResult): Promise<void> {
  const { Steps } = await loadSteps();
  const step = new Steps(ctx, local, result);
  await step.agree(actions.filter((a) => a.kind === 'agree'));
  await step.download(actions.filter((a) => a.kind === 'download'));
  await step.deleteLocal(actions.filter((a) => a.kind === 'delete-local'));
  await step.upload(actions.filter((a) => a.kind === 'upload' || a.kind === 'delete-remote'));
  const resolves = actions.filter((a) => a.kind === 'resolve');
  if (resolves.length) {
    // Loaded when needed: the merge pulls in `diff`, which an idle CLI run would load for nothing.
    const { resolveBoth } = await import('./resolve.js');
    for (const action of resolves) await step.guard(action.path, () => resolveBoth(step, action));
  }
  step.bases.prune(ctx.state.base.values());
}

/** The server's side as of a new cursor: the changes since the last one, or a full snapshot. */
async function refreshRemote({ state, remote, report }: PassContext): Promise<void> {
  if (state.cursor) {
    try {
      const { cursor, changed } = await remote.changesSince(state.cursor);
      if (cursor === state.cursor) return;
      for (const [path, hash] of changed) if (remote.accepts(path)) state.set('remote', path, hash);
      state.cursor = cursor;
      await state.checkpoint();
      return;
    } catch (err) {
      if (!(err instanceof SyncError && err.code === 'CURSOR_UNKNOWN')) throw err;
      report.line('The server history was rewritten since the last sync: comparing every file again.');
    }
  }
  const tree = await remote.snapshot();
  state.remote = new Map([...tree.files].filter(([path]) => remote.accepts(path)));
  state.cursor = tree.cursor;
  await state.checkpoint();
}

async function acknowledge({ state, remote, report }: PassContext): Promise<void> {
  try {
    await remote.ack(state.cursor!);
  } catch (err) {
    // After a rewritten history the server may keep refusing the old cursor's successors; the
    // client keeps its own cursor, so this only shows in `quire key list`.
    if (!(err instanceof SyncError && err.code === 'CURSOR_REGRESSION')) throw err;
    report.line(`The server kept an older acknowledgement (${err.message}); sync goes on.`);
  }
  state.acked = state.cursor;
}
