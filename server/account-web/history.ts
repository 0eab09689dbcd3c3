import type { Request, Response, Router } from 'express';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { emptyRow, queryText, sendAccountPage, when } from './frame.js';
import { compareRoute } from './history-compare.js';
import { historyPath, historyTabs, kindBadge, short, who, type HistoryEntry, type HistoryPage } from './history-model.js';
import { currentHash, restoreButton, restoreRoute } from './history-restore.js';

function findForm(area: AccountArea, path = ''): SafeHtml {
  return html`<form method="get" action="${area.path}/history" class="card"><label for="history-path">Page path</label>
<div class="row"><input type="text" id="history-path" name="path" required value="${path}" placeholder="Projects/Garden Plan.md" aria-describedby="history-path-hint"><button type="submit">Show its history</button></div>
<p class="hint" id="history-path-hint">Every version of the page, who made it, and a button to bring any of them back.</p></form>`;
}

const older = (href: string, cursor: string | null) =>
  cursor ? html`<p><a class="button secondary" href="${href}">Older changes</a></p>` : '';

function activityRow(area: AccountArea, entry: HistoryEntry): SafeHtml {
  const pages = entry.changes.map(
    (c) => html`<li><a class="mono" href="${area.path}${historyPath(c.path)}">${c.path}</a> ${kindBadge(c)}</li>`,
  );
  return html`<tr><td>${when(entry.at)}</td><td>${who(entry)}</td><td class="opt">${entry.message}</td><td><ul class="plain">${pages}</ul></td></tr>`;
}

/** Recent activity across the vault, with a box to jump to one page's history. */
async function sendActivity(req: Request, res: Response, area: AccountArea, visit: Visit) {
  const cursor = queryText(req, 'cursor');
  const page = await callOp<HistoryPage>(area, visit, 'page_history', { limit: 50, ...(cursor ? { cursor } : {}) });
  sendAccountPage(res, area, visit, {
    title: 'History',
    section: '/history',
    lead: 'Every change to your vault is kept. Open a page’s history to compare versions or bring one back.',
    body: html`${historyTabs(area, 'activity')}${findForm(area)}<div class="card table-wrap"><table><caption>Recent activity</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col" class="opt">Message</th><th scope="col">Pages</th></tr></thead>
<tbody>${page.entries.length ? page.entries.map((e) => activityRow(area, e)) : emptyRow(4, 'No changes yet.')}</tbody></table></div>
${older(`${area.path}/history?${new URLSearchParams({ cursor: page.next_cursor ?? '' })}`, page.next_cursor)}`,
  });
}

function versionRow(area: AccountArea, visit: Visit, path: string, entries: HistoryEntry[], i: number, current?: string): SafeHtml {
  const entry = entries[i];
  const change = entry.changes[0];
  const date = new Date(entry.at).toISOString().slice(0, 16).replace('T', ' ');
  const radio = (side: 'from' | 'to', checked: boolean) =>
    html`<input type="radio" form="compare" name="${side}" value="${entry.commit}" aria-label="Compare ${side} the version of ${date}"${checked ? html` checked` : ''}>`;
  const previous = entries[i + 1];
  const changes =
    previous && change.kind !== 'created'
      ? html`<a href="${area.path}/history/compare?${new URLSearchParams({ path, from: previous.commit, to: entry.commit })}">Changes</a>`
      : '';
  const action =
    change.hash === null
      ? ''
      : change.hash === current
        ? html`<span class="${i === 0 ? 'badge ok' : 'muted small'}">${i === 0 ? 'current' : 'same as current'}</span>`
        : restoreButton(area, visit, { path, at: entry.commit, base: current, label: `Restore the version of ${date}`, back: 'history' });
  return html`<tr><td class="pick" data-side="from">${radio('from', i === 1)}</td><td class="pick" data-side="to">${radio('to', i === 0)}</td>
<td>${when(entry.at)}<div class="small">${changes}</div></td><td>${who(entry)}</td><td><div>${entry.message}</div>${kindBadge(change)}</td>
<td class="opt mono small">${short(change.hash)}</td><td class="act">${action}</td></tr>`;
}

/** One page's versions, newest first: pick two to compare, or restore one. */
async function sendPageHistory(req: Request, res: Response, area: AccountArea, visit: Visit, path: string) {
  const cursor = queryText(req, 'cursor');
  const page = await callOp<HistoryPage>(area, visit, 'page_history', { path, limit: 50, ...(cursor ? { cursor } : {}) });
  const current = await currentHash(area, visit, path);
  const rows = page.entries.map((_e, i) => versionRow(area, visit, path, page.entries, i, current));
  sendAccountPage(res, area, visit, {
    title: `History of ${path}`,
    section: '/history',
    lead: 'Restoring a version writes it back as a new change: nothing in this list is ever lost.',
    body: html`${current ? '' : html`<p class="warning">This page is deleted. Restore one of its versions to bring it back.</p>`}
<div class="card"><form id="compare" method="get" action="${area.path}/history/compare" class="row"><input type="hidden" name="path" value="${path}">
<button type="submit">Compare selected versions</button><span class="hint">Choose a “from” and a “to” version in the table.</span></form>
<div class="table-wrap"><table class="stack"><caption class="vh">Versions of ${path}</caption>
<thead><tr><th scope="col">From</th><th scope="col">To</th><th scope="col">When</th><th scope="col">Who</th><th scope="col">Change</th><th scope="col" class="opt">Version</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table></div></div>
${older(`${area.path}${historyPath(path, { cursor: page.next_cursor ?? '' })}`, page.next_cursor)}
<p><a href="${area.path}/history">Recent activity</a></p>`,
  });
}

/** History through the catalog's page_history, diff_page and restore_page, as REST does. */
export function historyRoutes(router: Router, area: AccountArea): void {
  router.get('/history', async (req, res) => {
    const visit = res.locals.visit!;
    const path = queryText(req, 'path');
    return path === undefined ? sendActivity(req, res, area, visit) : sendPageHistory(req, res, area, visit, path);
  });
  compareRoute(router, area);
  restoreRoute(router, area);
}
