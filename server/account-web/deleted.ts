import type { Router } from 'express';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { emptyRow, queryText, sendAccountPage, when } from './frame.js';
import { actorText, historyPath, historyTabs, type DeletedPages } from './history-model.js';
import { restoreButton } from './history-restore.js';

function deletedRow(area: AccountArea, visit: Visit, page: DeletedPages['pages'][number]): SafeHtml {
  return html`<tr><td><a class="mono" href="${area.path}${historyPath(page.path)}">${page.path}</a></td><td>${when(page.deleted_at)}</td>
<td class="opt">${actorText(page.actor)}</td><td class="act">${restoreButton(area, visit, { path: page.path, at: page.last_hash, label: `Restore ${page.path}`, back: 'deleted' })}</td></tr>`;
}

/** Pages gone from the vault (list_deleted), each one click from coming back (restore_page). */
export function deletedRoutes(router: Router, area: AccountArea): void {
  router.get('/deleted', async (req, res) => {
    const visit = res.locals.visit!;
    const cursor = queryText(req, 'cursor');
    const { pages, next_cursor } = await callOp<DeletedPages>(area, visit, 'list_deleted', { limit: 100, ...(cursor ? { cursor } : {}) });
    sendAccountPage(res, area, visit, {
      title: 'Recently deleted',
      section: '/history',
      lead: 'Deleted pages stay in your vault’s history. Restore one to bring back its last version as a new change.',
      body: html`${historyTabs(area, 'deleted')}<div class="card table-wrap"><table><caption class="vh">Deleted pages</caption>
<thead><tr><th scope="col">Page</th><th scope="col">Deleted</th><th scope="col" class="opt">By</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${pages.length ? pages.map((p) => deletedRow(area, visit, p)) : emptyRow(4, 'No deleted pages.')}</tbody></table></div>
${next_cursor ? html`<p><a class="button secondary" href="${area.path}/deleted?${new URLSearchParams({ cursor: next_cursor })}">Older deletions</a></p>` : ''}`,
    });
  });
}
