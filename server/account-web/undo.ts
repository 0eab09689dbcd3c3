import type { Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import type { RevertResult } from '../../vault-store/revert/revert.js';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { diffView } from './diff-view.js';
import { postForm, queryText, redirectWith, sendAccountPage, type Section } from './frame.js';
import { historyPath } from './history-model.js';

/** Whose changes a page undoes: revert_changes' agent, key or app, and where to go afterwards. */
export interface UndoTarget {
  field: 'agent' | 'key' | 'app';
  value: string;
  /** How the page names it: "agent scribe", "Notes Assistant". */
  label: string;
  back: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** What a datetime-local field sends; the form says the time is UTC, so it is read as UTC. */
const LOCAL_MINUTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

function sinceField(value: string | undefined): string {
  if (value === undefined) return new Date(Date.now() - DAY_MS).toISOString().slice(0, 16);
  if (!LOCAL_MINUTE.test(value)) throw new QuireError('INVALID_REQUEST', `Not a date and time: ${value}`, { field: 'since' });
  return value;
}

const sinceText = (since: string) => `${since.replace('T', ' ')} UTC`;

/** The box on an agent's page (and the top of the plan page): pick the start of the window. */
export function undoForm(area: AccountArea, action: string, since?: string, heading = true): SafeHtml {
  return html`<form method="get" action="${area.path}${action}/undo" class="card">${heading ? html`<h2>Undo its changes</h2><p>See everything it changed since a moment, then undo it all as one change. Edits made since by anyone else are kept.</p>` : ''}
<label for="undo-since">Changes made since (UTC)</label><div class="row"><input type="datetime-local" id="undo-since" name="since" required value="${sinceField(since)}"><button type="submit" class="secondary">Show what would be undone</button></div></form>`;
}

const REASON: Record<RevertResult['skipped'][number]['reason'], string> = {
  conflict: 'changed since in the same lines',
  deleted_since: 'deleted since',
  exists_since: 'created again since',
  outside_write_paths: 'outside what it may change',
};

function pathList(area: AccountArea, title: string, paths: { path: string }[]): SafeHtml | '' {
  if (!paths.length) return '';
  return html`<section class="card"><h2>${title} <span class="badge">${paths.length}</span></h2><ul>${paths.map((p) => html`<li><a class="mono" href="${area.path}${historyPath(p.path)}">${p.path}</a></li>`)}</ul></section>`;
}

const countOf = (plan: RevertResult) => plan.reverted.length + plan.deleted.length + plan.recreated.length;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function planBody(area: AccountArea, visit: Visit, action: string, target: UndoTarget, since: string, plan: RevertResult): SafeHtml {
  const n = countOf(plan);
  if (!n && !plan.skipped.length)
    return html`<div class="card"><p><strong>Nothing to undo since ${sinceText(since)}.</strong> No page was changed by ${target.label} in that time.</p><a class="button secondary" href="${area.path}${target.back}">Back</a></div>`;
  const skipped = plan.skipped.map(
    (s) =>
      html`<section class="card"><div class="row"><h3 class="mono">${s.path}</h3><span class="badge warn">${REASON[s.reason]}</span></div>${diffView(s.diff, 'No change left to show.')}</section>`,
  );
  const apply = n
    ? postForm(
        area,
        visit,
        `${action}/undo`,
        html`<input type="hidden" name="since" value="${since}"><div class="row actions"><button type="submit" class="danger">Undo ${plural(n, 'change')}</button><a class="button secondary" href="${area.path}${target.back}">Cancel</a></div>`,
      )
    : html`<p class="warning">None of its changes can be undone without losing later edits.</p>`;
  return html`<p>Since ${sinceText(since)}, ${target.label} made ${plural(plan.commits.length, 'commit')}. Undoing makes one new commit; nothing changes until you confirm.</p>
${pathList(area, 'Changed back', plan.reverted)}${pathList(area, 'Deleted again (it created them)', plan.deleted)}${pathList(area, 'Brought back (it deleted them)', plan.recreated)}
${skipped.length ? html`<h2>Left as they are <span class="badge warn">${skipped.length}</span></h2><p class="small muted">Changed again since by someone else, so undoing would overwrite their edits.</p>${skipped}` : ''}
${apply}`;
}

function doneText(target: UndoTarget, since: string, result: RevertResult): string {
  if (!result.commit) return `Nothing to undo since ${sinceText(since)}.`;
  const parts = [`${result.reverted.length} changed back`, `${result.deleted.length} deleted`, `${result.recreated.length} brought back`];
  const left = result.skipped.length ? ` ${plural(result.skipped.length, 'page')} left as they are.` : '';
  return `Undid ${plural(countOf(result), 'change')} by ${target.label} since ${sinceText(since)} in one commit (${result.commit.slice(0, 7)}): ${parts.join(', ')}.${left}`;
}

/**
 * "Undo everything it changed since …" for one kind of credential, at `<base>/:id/undo`:
 * GET shows revert_changes' dry run, POST applies it (the REST surface applies unless dry_run).
 */
export function undoRoutes(
  router: Router,
  area: AccountArea,
  base: string,
  section: Section,
  resolve: (visit: Visit, id: string) => Promise<UndoTarget>,
): void {
  router.get(`${base}/:id/undo`, async (req, res) => {
    const visit = res.locals.visit!;
    const target = await resolve(visit, req.params.id);
    const since = sinceField(queryText(req, 'since'));
    const action = `${base}/${encodeURIComponent(req.params.id)}`;
    const plan = await callOp<RevertResult>(area, visit, 'revert_changes', {
      [target.field]: target.value,
      since: `${since}:00Z`,
      dry_run: true,
    });
    sendAccountPage(res, area, visit, {
      title: `Undo changes by ${target.label}`,
      section,
      body: html`${undoForm(area, action, since, false)}${planBody(area, visit, action, target, since, plan)}`,
    });
  });
  router.post(`${base}/:id/undo`, async (req, res) => {
    const visit = res.locals.visit!;
    const target = await resolve(visit, req.params.id);
    const since = sinceField(String(req.body.since ?? ''));
    const result = await callOp<RevertResult>(area, visit, 'revert_changes', { [target.field]: target.value, since: `${since}:00Z` });
    redirectWith(res, area, visit, target.back, { kind: 'notice', text: doneText(target, since, result) });
  });
}
