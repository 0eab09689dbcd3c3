import type { Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { diffView, fieldChanges } from './diff-view.js';
import { queryText, sendAccountPage } from './frame.js';
import { historyPath, short, type PageDiff } from './history-model.js';
import { currentHash, restoreButton } from './history-restore.js';

function side(label: string, s: PageDiff['from']): SafeHtml {
  const what = s.hash === null ? html`<span class="muted">the page did not exist</span>` : html`version <code>${short(s.hash)}</code>`;
  return html`<dt>${label}</dt><dd>${what}${s.commit ? html` <span class="muted small">at commit <code>${short(s.commit)}</code></span>` : ''}</dd>`;
}

/** Restoring the older side: the usual reason to compare. Absent when it is the current version. */
async function restoreOlder(area: AccountArea, visit: Visit, diff: PageDiff): Promise<SafeHtml | ''> {
  const at = diff.from.commit ?? diff.from.hash;
  if (!at || diff.from.hash === null) return '';
  const current = await currentHash(area, visit, diff.path);
  if (current === diff.from.hash) return '';
  return restoreButton(area, visit, {
    path: diff.path,
    at,
    base: current,
    label: `Restore the “from” version of ${diff.path}`,
    back: 'history',
    text: 'Restore the “from” version',
  });
}

export function compareRoute(router: Router, area: AccountArea): void {
  router.get('/history/compare', async (req, res) => {
    const visit = res.locals.visit!;
    const path = queryText(req, 'path');
    const from = queryText(req, 'from');
    if (!path || !from) throw new QuireError('INVALID_REQUEST', 'Choose a “from” version to compare');
    const to = queryText(req, 'to');
    const diff = await callOp<PageDiff>(area, visit, 'diff_page', { path, from, ...(to ? { to } : {}) });
    sendAccountPage(res, area, visit, {
      title: `Changes to ${diff.path}`,
      section: '/history',
      body: html`<div class="card"><dl class="facts">${side('From', diff.from)}${side('To', diff.to)}</dl>
${fieldChanges(diff.frontmatter)}
${diffView(diff.unified, 'These two versions are the same.')}
<div class="row actions">${await restoreOlder(area, visit, diff)}<a class="button secondary" href="${area.path}${historyPath(diff.path)}">Back to its history</a></div></div>`,
    });
  });
}
