import type { Request, Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { AGENT_MODES, type Agent } from '../agents/agent-store.js';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { emptyRow, postForm, redirectWith, sendAccountPage, sendConfirm, when } from './frame.js';
import { undoForm, undoRoutes } from './undo.js';

const MODE_TEXT: Record<Agent['mode'], string> = {
  read: 'Read only',
  propose: 'Propose changes for you to approve',
  write: 'Write directly',
};

const prefixList = (prefixes: string[]) =>
  html`<ul class="plain">${prefixes.map((p) => html`<li>${p ? html`<code>${p}</code>` : 'whole vault'}</li>`)}</ul>`;

/** One folder per line; an empty box means the whole vault. */
function prefixesFrom(text: unknown): string[] {
  const lines = String(text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.length ? lines : [''];
}

function agentFields(agent?: Agent): SafeHtml {
  const mode = agent?.mode ?? 'propose';
  const lines = (prefixes: string[] | undefined) => (prefixes ?? ['']).filter(Boolean).join('\n');
  return html`<label for="agent-description">Description</label><input type="text" id="agent-description" name="description" maxlength="1000" value="${agent?.description ?? ''}">
<fieldset><legend>Mode</legend>${AGENT_MODES.map((m) => html`<label class="check"><input type="radio" name="mode" value="${m}"${m === mode ? html` checked` : ''}> <span>${MODE_TEXT[m]}</span></label>`)}</fieldset>
<label for="agent-read">May read</label><textarea id="agent-read" name="read" aria-describedby="agent-read-hint" placeholder="projects/">${lines(agent?.read)}</textarea>
<p class="hint" id="agent-read-hint">One folder per line. Leave empty for the whole vault; other pages behave as if they did not exist.</p>
<label for="agent-write">May change (or propose changes in)</label><textarea id="agent-write" name="write" aria-describedby="agent-write-hint" placeholder="readwise/">${lines(agent?.write)}</textarea>
<p class="hint" id="agent-write-hint">One folder per line. Leave empty for the whole vault.</p>`;
}

function agentInput(req: Request): Record<string, unknown> {
  return {
    description: String(req.body.description ?? ''),
    mode: req.body.mode,
    read: prefixesFrom(req.body.read),
    write: prefixesFrom(req.body.write),
  };
}

async function ownAgent(area: AccountArea, visit: Visit, name: string): Promise<Agent> {
  const { agents } = await callOp<{ agents: Agent[] }>(area, visit, 'list_agents');
  const agent = agents.find((a) => a.name === name);
  if (!agent) throw new QuireError('NOT_FOUND', `No agent named ${name}`);
  return agent;
}

/** Agents are managed through the catalog's owner-only operations, like REST does. */
export function agentRoutes(router: Router, area: AccountArea): void {
  router.get('/agents', async (_req, res) => {
    const visit = res.locals.visit!;
    const { agents } = await callOp<{ agents: Agent[] }>(area, visit, 'list_agents');
    const rows = agents.map(
      (a) => html`<tr><td><strong>${a.name}</strong>${a.description ? html`<div class="muted small">${a.description}</div>` : ''}</td>
<td><span class="badge${a.mode === 'write' ? ' warn' : ''}">${a.mode}</span></td><td>${prefixList(a.read)}</td><td>${a.mode === 'read' ? html`<span class="muted">—</span>` : prefixList(a.write)}</td>
<td class="opt">${when(a.updated_at)}</td><td><a href="${area.path}/agents/${a.name}">Edit</a></td></tr>`,
    );
    sendAccountPage(res, area, visit, {
      title: 'Agents',
      section: '/agents',
      lead: 'An agent is a bot or assistant with limited reach. Bind a key or an app to it, and it can only read and change what you allow here.',
      body: html`<div class="card table-wrap"><table><caption class="vh">Your agents</caption>
<thead><tr><th scope="col">Agent</th><th scope="col">Mode</th><th scope="col">Reads</th><th scope="col">Changes</th><th scope="col" class="opt">Updated</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${rows.length ? rows : emptyRow(6, 'No agents yet.')}</tbody></table></div>
${postForm(
  area,
  visit,
  '/agents',
  html`<h2>Create an agent</h2>
<label for="agent-name">Name</label><input type="text" id="agent-name" name="name" required pattern="[a-z0-9][a-z0-9_\\-]{0,38}" aria-describedby="agent-name-hint" placeholder="research-bot">
<p class="hint" id="agent-name-hint">Lower-case letters, digits, “-” and “_”.</p>
${agentFields()}<button type="submit">Create agent</button>`,
  'card',
)}`,
    });
  });
  router.post('/agents', async (req, res) => {
    const visit = res.locals.visit!;
    const name = String(req.body.name ?? '').trim();
    try {
      const { agents } = await callOp<{ agents: Agent[] }>(area, visit, 'list_agents');
      if (agents.some((a) => a.name === name)) throw new QuireError('CONFLICT', `You already have an agent named ${name}`);
      await callOp(area, visit, 'put_agent', { name, ...agentInput(req) });
      redirectWith(res, area, visit, '/agents', { kind: 'notice', text: `Agent ${name} created. Bind a key to it on the API keys page.` });
    } catch (err) {
      if (!(err instanceof QuireError)) throw err;
      redirectWith(res, area, visit, '/agents', { kind: 'error', text: err.message });
    }
  });
  router.get('/agents/:name', async (req, res) => {
    const visit = res.locals.visit!;
    const agent = await ownAgent(area, visit, req.params.name);
    sendAccountPage(res, area, visit, {
      title: `Agent ${agent.name}`,
      section: '/agents',
      body: html`${postForm(area, visit, `/agents/${agent.name}`, html`${agentFields(agent)}<div class="row actions"><button type="submit">Save</button><a class="button secondary" href="${area.path}/agents">Cancel</a></div>`, 'card')}
${undoForm(area, `/agents/${agent.name}`)}
<div class="card"><h2>Remove this agent</h2><p>Keys and apps bound to it stop working; they never fall back to your own rights.</p><a class="button secondary" href="${area.path}/agents/${agent.name}/remove">Remove ${agent.name}…</a></div>`,
    });
  });
  router.post('/agents/:name', async (req, res) => {
    const visit = res.locals.visit!;
    const agent = await ownAgent(area, visit, req.params.name);
    try {
      await callOp(area, visit, 'put_agent', { name: agent.name, ...agentInput(req) });
      redirectWith(res, area, visit, '/agents', { kind: 'notice', text: `Agent ${agent.name} saved.` });
    } catch (err) {
      if (!(err instanceof QuireError)) throw err;
      redirectWith(res, area, visit, `/agents/${agent.name}`, { kind: 'error', text: err.message });
    }
  });
  undoRoutes(router, area, '/agents', '/agents', async (visit, name) => {
    const agent = await ownAgent(area, visit, name);
    return { field: 'agent', value: agent.name, label: `agent ${agent.name}`, back: `/agents/${agent.name}` };
  });
  router.get('/agents/:name/remove', async (req, res) => {
    const visit = res.locals.visit!;
    const agent = await ownAgent(area, visit, req.params.name);
    sendConfirm(res, area, visit, {
      section: '/agents',
      title: 'Remove agent',
      back: `/agents/${agent.name}`,
      action: `/agents/${agent.name}/remove`,
      button: 'Remove agent',
      message: html`<p>Remove <strong>${agent.name}</strong>? Keys and apps bound to it stop working at once.</p>`,
    });
  });
  router.post('/agents/:name/remove', async (req, res) => {
    const visit = res.locals.visit!;
    await callOp(area, visit, 'delete_agent', { name: req.params.name });
    redirectWith(res, area, visit, '/agents', { kind: 'notice', text: `Agent ${req.params.name} removed.` });
  });
}
