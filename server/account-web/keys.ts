import type { Response, Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import type { KeyRecord } from '../accounts/account-store.js';
import { html, type SafeHtml } from '../web/html.js';
import type { AccountArea, Visit } from './area.js';
import { emptyRow, postForm, redirectWith, sendAccountPage, sendConfirm, when } from './frame.js';
import { undoRoutes } from './undo.js';

function keyRow(area: AccountArea, key: KeyRecord): SafeHtml {
  const lastUsed = key.last_used_at;
  return html`<tr><td><strong>${key.name}</strong></td><td>${key.scope === 'write' ? 'read + write' : 'read only'}</td>
<td class="opt">${key.device ? html`<span class="badge">device</span>` : '—'}</td><td>${key.agent ? html`<span class="badge">${key.agent}</span>` : html`<span class="muted">you</span>`}</td>
<td class="opt">${when(key.created_at)}</td><td>${when(lastUsed)}</td>
<td class="act"><ul class="plain">${key.scope === 'write' ? html`<li><a href="${area.path}/keys/${key.id}/undo" aria-label="Undo changes made with ${key.name}">Undo changes…</a></li>` : ''}
<li><a href="${area.path}/keys/${key.id}/revoke" aria-label="Revoke ${key.name}">Revoke</a></li></ul></td></tr>`;
}

async function createForm(area: AccountArea, visit: Visit): Promise<SafeHtml> {
  const agents = await area.services.agents.list(visit.user);
  return postForm(
    area,
    visit,
    '/keys',
    html`<h2>Create a key</h2>
<label for="key-name">Name</label><input type="text" id="key-name" name="name" required maxlength="100" aria-describedby="key-name-hint" placeholder="laptop-sync">
<p class="hint" id="key-name-hint">Where the key will live, so you know which one to revoke later.</p>
<label for="key-scope">Access</label><select id="key-scope" name="scope"><option value="read">Read only</option><option value="write">Read and write</option></select>
<label for="key-agent">Acts as</label><select id="key-agent" name="agent"><option value="">Me (no agent limits)</option>${agents.map((a) => html`<option value="${a.name}">Agent ${a.name} (${a.mode})</option>`)}</select>
<label class="check"><input type="checkbox" name="device" value="yes"> <span>Device key: a sync client that acknowledges change-log cursors</span></label>
<button type="submit">Create key</button>`,
    'card',
  );
}

async function sendKeys(res: Response, area: AccountArea, visit: Visit, minted?: { name: string; key: string }): Promise<void> {
  const keys = await area.services.accounts.keys(visit.user);
  const shown = minted
    ? html`<section class="card" aria-labelledby="new-key"><h2 id="new-key">Your new key “${minted.name}”</h2>
<p class="warning"><strong>Copy it now: you will not see this key again.</strong> Quire stores only a hash of it.</p>
<div class="secret"><label for="minted" class="vh">API key</label><input type="text" id="minted" readonly value="${minted.key}" aria-label="The new API key"><button type="button" data-copy="minted" hidden>Copy</button></div>
<p class="hint">Send it as <code>Authorization: Bearer …</code> on REST and MCP.</p></section>`
    : '';
  sendAccountPage(res, area, visit, {
    title: 'API keys',
    section: '/keys',
    lead: 'Keys let scripts, sync clients and assistants reach your vault. Each one can be revoked on its own.',
    body: html`${shown}<div class="card table-wrap"><table><caption class="vh">Your API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Access</th><th scope="col" class="opt">Device</th><th scope="col">Acts as</th><th scope="col" class="opt">Created</th><th scope="col">Last used</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${keys.length ? keys.map((k) => keyRow(area, k)) : emptyRow(7, 'No keys yet.')}</tbody></table></div>${await createForm(area, visit)}`,
  });
}

async function ownKey(area: AccountArea, visit: Visit, id: string): Promise<KeyRecord> {
  const key = (await area.services.accounts.keys(visit.user)).find((k) => k.id === id);
  if (!key) throw new QuireError('NOT_FOUND', 'No such key (it may already be revoked)');
  return key;
}

/** Keys are account records, not vault operations: managed through the account store. */
export function keyRoutes(router: Router, area: AccountArea): void {
  router.get('/keys', (_req, res) => sendKeys(res, area, res.locals.visit!));
  router.post('/keys', async (req, res) => {
    const visit = res.locals.visit!;
    const agent = String(req.body.agent ?? '') || undefined;
    const scope = req.body.scope === 'write' ? 'write' : 'read';
    try {
      if (agent) await area.services.agents.require(visit.user, agent);
      const { key, record } = await area.services.accounts.createKey({
        user: visit.user,
        name: String(req.body.name ?? '').trim(),
        scope,
        device: req.body.device === 'yes',
        agent,
      });
      // Rendered in the POST's own response, never stored or redirected: it exists on this one page.
      await sendKeys(res, area, { ...visit, flash: { kind: 'notice', text: `Key ${record.name} created.` } }, { name: record.name, key });
    } catch (err) {
      if (!(err instanceof QuireError)) throw err;
      redirectWith(res, area, visit, '/keys', { kind: 'error', text: err.message });
    }
  });
  undoRoutes(router, area, '/keys', '/keys', async (visit, id) => {
    const key = await ownKey(area, visit, id);
    return { field: 'key', value: key.id, label: `key ${key.name}`, back: '/keys' };
  });
  router.get('/keys/:id/revoke', async (req, res) => {
    const visit = res.locals.visit!;
    const key = await ownKey(area, visit, req.params.id);
    sendConfirm(res, area, visit, {
      section: '/keys',
      title: 'Revoke key',
      back: '/keys',
      action: `/keys/${key.id}/revoke`,
      button: 'Revoke key',
      message: html`<p>Revoke <strong>${key.name}</strong>? Anything using it stops working at once. This cannot be undone.</p>`,
    });
  });
  router.post('/keys/:id/revoke', async (req, res) => {
    const visit = res.locals.visit!;
    const key = await ownKey(area, visit, req.params.id);
    await area.services.accounts.revokeKey(visit.user, key.name);
    redirectWith(res, area, visit, '/keys', { kind: 'notice', text: `Key ${key.name} revoked.` });
  });
}
