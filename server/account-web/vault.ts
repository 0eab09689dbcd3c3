import type { Router } from 'express';
import { BUCKETS } from '../accounts/plans.js';
import { isRawResult } from '../ops/raw-result.js';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { sendAccountPage } from './frame.js';

interface Stats {
  pages: number;
  words: number;
  links: number;
  unresolved_links: number;
  commits: number;
  tags: unknown[];
}
interface Health {
  status: string;
  index: { fresh: boolean; indexed_commit: string | null; head: string | null; pages: number };
  lint: Record<string, number>;
}

const BUCKET_TEXT: Record<(typeof BUCKETS)[number], string> = {
  read: 'Reads and searches',
  write: 'Writes',
  sync: 'Sync and clone',
  expensive: 'Heavy work (export, ask, rebuild)',
};

/** The export operation, when this server has one (it streams a zip through REST). */
function exportOp(area: AccountArea) {
  return area.catalog.find((op) => op.rest?.method === 'get' && op.rest.path === '/vault/export');
}

async function usage(area: AccountArea, visit: Visit): Promise<SafeHtml> {
  const user = await area.services.accounts.requireUser(visit.user);
  const plan = area.services.config.plans[user.plan];
  if (!plan) return html`<p class="error">Your plan “${user.plan}” is not configured on this server.</p>`;
  const rows = await Promise.all(
    BUCKETS.map(async (bucket) => {
      const state = await area.services.limiter.peek(visit.user, bucket, plan);
      const used = state.limit - state.remaining;
      return html`<tr><td>${BUCKET_TEXT[bucket]}</td><td><meter min="0" max="${state.limit}" value="${used}" aria-label="${bucket} requests used">${used}</meter> ${used} of ${state.limit}</td></tr>`;
    }),
  );
  return html`<p>Plan <strong>${user.plan}</strong>: ${plan.rest ? 'REST' : ''}${plan.rest && plan.mcp ? ' and ' : ''}${plan.mcp ? 'MCP' : ''}${!plan.rest && !plan.mcp ? 'no API access' : ''}. Limits are per minute, shared by all your keys and apps.</p>
<div class="table-wrap"><table><caption class="vh">Requests this minute</caption><thead><tr><th scope="col">Kind</th><th scope="col">Used this minute</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function healthCard(health: Health): SafeHtml {
  const lint = Object.entries(health.lint);
  const problems = lint.reduce((sum, [, n]) => sum + n, 0);
  return html`<div class="card"><h2>Health</h2>
<p><span class="badge ${health.status === 'ok' ? 'ok' : 'warn'}">${health.status}</span> Search index ${health.index.fresh ? 'is up to date' : html`<strong>lags behind</strong> (it rebuilds itself)`}.</p>
<p>${problems === 0 ? 'No lint findings.' : `${problems} lint finding${problems === 1 ? '' : 's'}:`}</p>
${problems ? html`<ul>${lint.filter(([, n]) => n > 0).map(([kind, n]) => html`<li>${kind.replace(/_/g, ' ')}: ${n}</li>`)}</ul>` : ''}</div>`;
}

/** The overview: what is in the vault, how healthy it is, how to get it out, and the plan's limits. */
export function vaultRoutes(router: Router, area: AccountArea): void {
  router.get('/', async (_req, res) => {
    const visit = res.locals.visit!;
    const [stats, health] = await Promise.all([callOp<Stats>(area, visit, 'vault_stats'), callOp<Health>(area, visit, 'vault_health')]);
    const base = area.services.config.baseUrl;
    const clone = `git clone ${base}/vault.git`;
    sendAccountPage(res, area, visit, {
      title: 'Your vault',
      section: '',
      body: html`<div class="grid">
<div class="card"><h2>Pages</h2><p class="figure">${stats.pages}</p><p class="muted small">${stats.words} words · ${stats.links} links · ${stats.tags.length} tags · ${stats.commits} commits</p></div>
${healthCard(health)}
</div>
<div class="card"><h2>Take it with you</h2>
${exportOp(area) ? html`<p>Download every page and attachment as a zip, or keep a full copy with its history using git.</p><p><a class="button" href="${area.path}/vault/export" download>Download as zip</a></p>` : html`<p>Keep a full copy, with its history, using git.</p>`}
<label for="clone">Clone command</label>
<div class="secret"><input type="text" id="clone" readonly value="${clone}"><button type="button" data-copy="clone" hidden>Copy</button></div>
<p class="hint">Git asks for a user name (type anything) and a password: paste a read key from <a href="${area.path}/keys">API keys</a>. To skip the prompt: <code>git -c http.extraHeader="Authorization: Bearer KEY" clone ${base}/vault.git</code></p></div>
<div class="card"><h2>Plan and usage</h2>${await usage(area, visit)}</div>
<div class="card"><h2>Connect</h2><dl class="facts"><dt>REST</dt><dd><code>${base}/vault</code></dd><dt>MCP</dt><dd><code>${base}/mcp</code></dd></dl></div>`,
    });
  });
  router.get('/vault/export', async (req, res) => {
    const result = await callOp<unknown>(area, res.locals.visit!, exportOp(area)?.name ?? 'export');
    if (isRawResult(result)) await result.send(res, req);
    else res.json(result);
  });
}
