import type { Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { mcpCapabilities } from '../auth/credential.js';
import type { OAuthGrant } from '../oauth/grants-store.js';
import { SCOPE_TEXT } from '../oauth/scopes.js';
import { html } from '../web/html.js';
import type { AccountArea, Visit } from './area.js';
import { emptyRow, redirectWith, sendAccountPage, sendConfirm, when } from './frame.js';
import { undoRoutes } from './undo.js';

/** Grants may name an agent once the consent page offers one; until then they act as the user. */
type GrantView = OAuthGrant & { agent?: string };

function scopeText(scope: string): string {
  return (SCOPE_TEXT as Record<string, string>)[scope] ?? scope;
}

async function ownGrant(area: AccountArea, visit: Visit, id: string): Promise<GrantView> {
  const grant = (await area.grants.listForUser(visit.user)).find((g) => g.id === id);
  if (!grant) throw new QuireError('NOT_FOUND', 'No such connected app (it may already be disconnected)');
  return grant;
}

/** OAuth clients the user approved on the consent page; disconnecting revokes every token at once. */
export function appRoutes(router: Router, area: AccountArea): void {
  router.get('/apps', async (_req, res) => {
    const visit = res.locals.visit!;
    const grants: GrantView[] = await area.grants.listForUser(visit.user);
    const rows = grants.map(
      (g) => html`<tr><td><strong>${g.client_name}</strong></td>
<td><ul class="plain">${g.scopes.map((s) => html`<li title="${s}">${scopeText(s)}</li>`)}</ul></td>
<td>${g.agent ? html`<span class="badge">${g.agent}</span>` : html`<span class="muted">you</span>`}</td>
<td class="opt">${when(g.created_at)}</td><td>${when(g.last_used_at)}</td>
<td class="act"><ul class="plain">${mcpCapabilities(g.scopes).has('capture') ? html`<li><a href="${area.path}/apps/${g.id}/undo" aria-label="Undo changes by ${g.client_name}">Undo changes…</a></li>` : ''}
<li><a href="${area.path}/apps/${g.id}/revoke" aria-label="Disconnect ${g.client_name}">Disconnect</a></li></ul></td></tr>`,
    );
    sendAccountPage(res, area, visit, {
      title: 'Connected apps',
      section: '/apps',
      lead: 'Assistants and tools you allowed through the sign-in and consent pages (OAuth). They use MCP with only the permissions you ticked.',
      body: html`<div class="card table-wrap"><table><caption class="vh">Connected apps</caption>
<thead><tr><th scope="col">App</th><th scope="col">May</th><th scope="col">Acts as</th><th scope="col" class="opt">Connected</th><th scope="col">Last used</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${rows.length ? rows : emptyRow(6, 'No apps connected. Point an MCP client at your server’s /mcp address to connect one.')}</tbody></table></div>`,
    });
  });
  undoRoutes(router, area, '/apps', '/apps', async (visit, id) => {
    const grant = await ownGrant(area, visit, id);
    return { field: 'app', value: grant.id, label: grant.client_name, back: '/apps' };
  });
  router.get('/apps/:id/revoke', async (req, res) => {
    const visit = res.locals.visit!;
    const grant = await ownGrant(area, visit, req.params.id);
    sendConfirm(res, area, visit, {
      section: '/apps',
      title: 'Disconnect app',
      back: '/apps',
      action: `/apps/${grant.id}/revoke`,
      button: 'Disconnect',
      message: html`<p>Disconnect <strong>${grant.client_name}</strong>? Its access and refresh tokens stop working at once; to use it again you will approve it anew.</p>`,
    });
  });
  router.post('/apps/:id/revoke', async (req, res) => {
    const visit = res.locals.visit!;
    const grant = await ownGrant(area, visit, req.params.id);
    await area.grants.revokeGrant(visit.user, grant.id);
    redirectWith(res, area, visit, '/apps', { kind: 'notice', text: `${grant.client_name} disconnected.` });
  });
}
