import type { Router } from 'express';
import { html } from '../web/html.js';
import type { AccountArea } from './area.js';
import { emptyRow, sendAccountPage, when } from './frame.js';

/** Device keys and how far each has followed the change log. */
export function deviceRoutes(router: Router, area: AccountArea): void {
  router.get('/devices', async (_req, res) => {
    const visit = res.locals.visit!;
    const devices = (await area.services.accounts.keys(visit.user)).filter((k) => k.device);
    const rows = await Promise.all(
      devices.map(async (key) => {
        const usage = await area.services.usage.get(key.id);
        return html`<tr><td><strong>${key.name}</strong></td><td>${key.scope === 'write' ? 'read + write' : 'read only'}</td>
<td>${usage.cursor ? html`<code title="${usage.cursor}">${usage.cursor.slice(0, 10)}</code>` : html`<span class="muted">not yet</span>`}</td>
<td>${when(usage.cursor_at)}</td><td class="opt">${when(usage.last_used_at)}</td>
<td><a href="${area.path}/keys/${key.id}/revoke" aria-label="Revoke ${key.name}">Revoke</a></td></tr>`;
      }),
    );
    sendAccountPage(res, area, visit, {
      title: 'Devices',
      section: '/devices',
      lead: 'Sync clients follow the change log and acknowledge what they applied. A device that stops acknowledging has fallen behind or is gone.',
      body: html`<div class="card table-wrap"><table><caption class="vh">Your devices</caption>
<thead><tr><th scope="col">Device</th><th scope="col">Access</th><th scope="col">Last acknowledged commit</th><th scope="col">Acknowledged at</th><th scope="col" class="opt">Last used</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${rows.length ? rows : emptyRow(6, 'No device keys yet.')}</tbody></table></div>
<p class="muted small">Create a device key on the <a href="${area.path}/keys">API keys</a> page (tick “Device key”).</p>`,
    });
  });
}
