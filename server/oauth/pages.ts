import type { McpScope } from '../auth/credential.js';
import { html, type SafeHtml } from '../web/html.js';
import { renderShell } from '../web/page.js';
import { SCOPE_TEXT } from './scopes.js';

/**
 * The browser pages of the authorization flow, in the account area's look (one shell and
 * stylesheet for every page). Every value is interpolated through `html`, which escapes it.
 */

function layout(title: string, body: SafeHtml): string {
  return renderShell({ title, body: html`<div class="card">${body}</div>`, narrow: true });
}

export interface RequestView {
  action: string;
  request: string;
  csrf: string;
  clientName: string;
  redirectHost: string;
  /** The whole redirect URI when it opens a native app (`cursor://…`): shown in full. */
  appRedirect?: string;
  /** The client_id URL of a client known only by its metadata document, and its logo's host. */
  metadataDocument?: string;
  logoHost?: string;
}

function returningTo(view: RequestView): SafeHtml {
  return view.appRedirect ? html`opening the app at ${view.appRedirect}` : html`returning to ${view.redirectHost}`;
}

/** Who vouches for the name: the document the app published, at its own URL (the logo is not loaded from there). */
function identifiedBy(view: RequestView): SafeHtml {
  if (!view.metadataDocument) return html``;
  const logo = view.logoHost ? html` Its logo is hosted at ${view.logoHost}.` : '';
  return html`<p class="muted small">${view.clientName} is identified by its metadata document at <code>${view.metadataDocument}</code>.${logo}</p>`;
}

function hidden(view: RequestView): SafeHtml {
  return html`<input type="hidden" name="request" value="${view.request}"><input type="hidden" name="csrf" value="${view.csrf}">`;
}

export function signInPage(view: RequestView & { error?: string; username?: string }): string {
  return layout(
    'Sign in',
    html`
<p class="muted small">Quire</p>
<h1>Sign in to connect ${view.clientName}</h1>
<p class="muted">${view.clientName} (${returningTo(view)}) wants to use your Quire vault.</p>
${identifiedBy(view)}
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="${view.action}">
${hidden(view)}
<label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username" required value="${view.username ?? ''}">
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

function actAsChoice(agents: readonly string[]) {
  if (agents.length === 0) return html``;
  return html`<label for="act_as">Act as</label>
<select id="act_as" name="act_as"><option value="">Me — everything the ticked boxes allow</option>${agents.map((a) => html`<option value="${a}">Agent “${a}” — only its folders and mode</option>`)}</select>`;
}

export function consentPage(view: RequestView & { user: string; scopes: readonly McpScope[]; agents: readonly string[] }): string {
  return layout(
    'Allow access',
    html`
<h1>Allow ${view.clientName} to use your vault?</h1>
${identifiedBy(view)}
<p>Signed in as <strong>${view.user}</strong>.${view.appRedirect ? '' : html` After you decide, you return to <strong>${view.redirectHost}</strong>.`}</p>
${view.appRedirect ? html`<p class="warning">After you approve, this will open the app at <strong><code>${view.appRedirect}</code></strong>.</p>` : ''}
<form method="post" action="${view.action}">
${hidden(view)}
<fieldset><legend>${view.clientName} asks to:</legend>
${view.scopes.map((scope) => html`<label class="check"><input type="checkbox" name="scope" value="${scope}" checked> <span>${SCOPE_TEXT[scope]}</span></label>`)}
</fieldset>
${actAsChoice(view.agents)}
<p class="muted">Only the boxes you leave ticked are granted. You can disconnect the app at any time.</p>
<div class="row"><button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>`,
  );
}

export function errorPage(message: string): string {
  return layout(
    'Cannot continue',
    html`<h1>Cannot continue</h1><p class="error" role="alert">${message}</p><p class="muted">Go back to the app and connect again.</p>`,
  );
}

/** An authorization request refused before the user saw who asked: told here, not to the app. */
export function refusedRequestPage(code: string, description: string): string {
  return layout(
    'Request refused',
    html`<h1>This connection request cannot be used</h1><p class="error" role="alert">${description}</p>
<p class="muted">Error <code>${code}</code>. Nothing was shared, and this server does not send you on to the app's address. If you trust the app, let its makers know; otherwise just close this page.</p>`,
  );
}
