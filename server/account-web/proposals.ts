import type { Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import type { ProposalDetail } from '../../vault-store/proposals/proposals.js';
import type { ProposalRecord } from '../../vault-store/proposals/proposal.js';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { diffView } from './diff-view.js';
import { emptyRow, postForm, redirectWith, sendAccountPage, when } from './frame.js';

const STATUS_BADGE: Record<ProposalRecord['status'], string> = { pending: 'warn', approved: 'ok', rejected: 'bad' };

const APPLIES_TEXT: Record<ProposalDetail['applies'], [string, string]> = {
  clean: ['ok', 'applies cleanly'],
  merge: ['warn', 'page changed since; edits merge'],
  conflict: ['bad', 'conflict'],
};

function by(record: ProposalRecord): string {
  return record.created_by.agent ? `agent ${record.created_by.agent}` : record.created_by.name;
}

function decision(area: AccountArea, visit: Visit, p: ProposalDetail): SafeHtml {
  if (p.status !== 'pending') {
    return html`<p>${p.status === 'approved' ? 'Approved' : 'Rejected'} ${when(p.decided_at)}${p.decided_by ? html` by ${p.decided_by.name}` : ''}${p.reason ? html`: “${p.reason}”` : ''}${p.commit ? html` in commit <code>${p.commit.slice(0, 10)}</code>` : ''}.</p>`;
  }
  return html`${p.applies === 'conflict' ? html`<p class="error" role="alert"><strong>This proposal conflicts</strong> with edits made since: approving it will fail until the agent proposes again against the current pages. The conflicting pages are marked below.</p>` : ''}
${p.applies === 'merge' ? html`<p class="warning">Some pages changed since the proposal was made, but the edits do not overlap: approving merges them.</p>` : ''}
<div class="row actions">${postForm(area, visit, `/proposals/${p.id}/approve`, html`<button type="submit">Approve and apply</button>`)}
${postForm(area, visit, `/proposals/${p.id}/reject`, html`<div class="row"><label for="reason" class="vh">Reason for rejecting (optional)</label><input type="text" id="reason" name="reason" maxlength="2000" placeholder="Reason (optional)"><button type="submit" class="secondary">Reject</button></div>`, 'grow')}</div>`;
}

function changeSection(change: ProposalDetail['diffs'][number]): SafeHtml {
  const [badge, text] = APPLIES_TEXT[change.applies];
  return html`<section class="card"><div class="row"><h3 class="mono">${change.path}</h3>${change.delete ? html`<span class="badge bad">delete</span>` : ''}<span class="badge ${badge}">${text}</span></div>
${change.applies === 'conflict' ? html`<p class="small muted">Proposed against <code>${(change.base_hash ?? 'a new page').slice(0, 10)}</code>; the page is now <code>${(change.current_hash ?? 'deleted').slice(0, 10)}</code>.</p>` : ''}
${diffView(change.diff)}</section>`;
}

/** Pending proposals first, then the decided ones, newest first within each. */
function ordered(list: ProposalRecord[]): ProposalRecord[] {
  return [...list.filter((p) => p.status === 'pending'), ...list.filter((p) => p.status !== 'pending')];
}

/** Proposals go through the catalog (list, get, approve, reject), as REST does. */
export function proposalRoutes(router: Router, area: AccountArea): void {
  router.get('/proposals', async (_req, res) => {
    const visit = res.locals.visit!;
    const { proposals } = await callOp<{ proposals: ProposalRecord[] }>(area, visit, 'list_proposals');
    const rows = ordered(proposals).map(
      (
        p,
      ) => html`<tr><td><a href="${area.path}/proposals/${p.id}"><strong>${p.title}</strong></a><div class="muted small">${p.changes.length} page${p.changes.length === 1 ? '' : 's'}: ${p.changes.map((c) => c.path).join(', ')}</div></td>
<td><span class="badge ${STATUS_BADGE[p.status]}">${p.status}</span></td><td>${by(p)}</td><td class="opt">${when(p.created_at)}</td></tr>`,
    );
    const pending = proposals.filter((p) => p.status === 'pending').length;
    sendAccountPage(res, area, visit, {
      title: 'Proposals',
      section: '/proposals',
      lead: pending
        ? `${pending} waiting for your decision. Agents in propose mode send changes here instead of writing.`
        : 'Nothing waiting. Agents in propose mode send changes here instead of writing.',
      body: html`<div class="card table-wrap"><table><caption class="vh">Proposals</caption>
<thead><tr><th scope="col">Proposal</th><th scope="col">Status</th><th scope="col">From</th><th scope="col" class="opt">Made</th></tr></thead>
<tbody>${rows.length ? rows : emptyRow(4, 'No proposals yet.')}</tbody></table></div>`,
    });
  });
  router.get('/proposals/:id', async (req, res) => {
    const visit = res.locals.visit!;
    const p = await callOp<ProposalDetail>(area, visit, 'get_proposal', { id: req.params.id });
    sendAccountPage(res, area, visit, {
      title: p.title,
      section: '/proposals',
      body: html`<div class="card"><dl class="facts"><dt>Status</dt><dd><span class="badge ${STATUS_BADGE[p.status]}">${p.status}</span></dd>
<dt>From</dt><dd>${by(p)}</dd><dt>Made</dt><dd>${when(p.created_at)}</dd></dl>
<h2 class="vh">Rationale</h2>${p.rationale ? html`<blockquote>${p.rationale}</blockquote>` : html`<p class="empty">No rationale given.</p>`}
${decision(area, visit, p)}</div>
<h2>Changes</h2>${p.diffs.map(changeSection)}
<p><a href="${area.path}/proposals">All proposals</a></p>`,
    });
  });
  router.post('/proposals/:id/approve', async (req, res) => {
    const visit = res.locals.visit!;
    const id = req.params.id;
    try {
      await callOp(area, visit, 'approve_proposal', { id });
      redirectWith(res, area, visit, '/proposals', { kind: 'notice', text: 'Proposal approved and applied.' });
    } catch (err) {
      if (!(err instanceof QuireError) || err.code !== 'CONFLICT') throw err;
      redirectWith(res, area, visit, `/proposals/${encodeURIComponent(id)}`, { kind: 'error', text: err.message });
    }
  });
  router.post('/proposals/:id/reject', async (req, res) => {
    const visit = res.locals.visit!;
    const reason = String(req.body.reason ?? '').trim();
    await callOp(area, visit, 'reject_proposal', { id: req.params.id, ...(reason ? { reason } : {}) });
    redirectWith(res, area, visit, '/proposals', { kind: 'notice', text: 'Proposal rejected; its record is kept.' });
  });
}
