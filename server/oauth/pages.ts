import type { McpScope } from '../auth/credential.js';
import { html, SafeHtml } from './html.js';
import { SCOPE_TEXT } from './scopes.js';

/**
 * The browser pages of the authorization flow, kept together so the account area can give
 * them its look later. Every value is interpolated through `html`, which escapes it.
 */

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f5f2;color:#1d1d1b}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:10px;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;font:inherit;border:1px solid #999;border-radius:6px}
button{font:inherit;padding:.55rem 1.1rem;border-radius:6px;border:1px solid #1d1d1b;background:#1d1d1b;color:#fff;margin:1rem .5rem 0 0;cursor:pointer}
button.secondary{background:#fff;color:#1d1d1b}.scope{display:flex;gap:.6rem;align-items:flex-start;margin:.6rem 0;font-weight:400}
.error{background:#fde8e8;color:#8a1c1c;padding:.6rem .8rem;border-radius:6px}.muted{color:#555;font-size:.9rem}`;

/** Our own constant, not user input. */
const STYLE_HTML = new SafeHtml(STYLE);

function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Quire</title><style>${STYLE_HTML}</style></head>
<body><main>${body}</main></body></html>`.value;
}

export interface RequestView {
  action: string;
  request: string;
  csrf: string;
  clientName: string;
  redirectHost: string;
}

function hidden(view: RequestView): SafeHtml {
  return html`<input type="hidden" name="request" value="${view.request}"><input type="hidden" name="csrf" value="${view.csrf}">`;
}

export function signInPage(view: RequestView & { error?: string; username?: string }): string {
  return layout('Sign in', html`
<h1>Sign in to connect ${view.clientName}</h1>
<p class="muted">${view.clientName} (returning to ${view.redirectHost}) wants to use your Quire vault.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="${view.action}">
${hidden(view)}
<label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username" required value="${view.username ?? ''}">
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`);
}

export function consentPage(view: RequestView & { user: string; scopes: readonly McpScope[] }): string {
  return layout('Allow access', html`
<h1>Allow ${view.clientName} to use your vault?</h1>
<p>Signed in as <strong>${view.user}</strong>. After you decide, you return to <strong>${view.redirectHost}</strong>.</p>
<form method="post" action="${view.action}">
${hidden(view)}
<fieldset style="border:0;padding:0;margin:0"><legend>${view.clientName} asks to:</legend>
${view.scopes.map((scope) => html`<label class="scope"><input type="checkbox" name="scope" value="${scope}" checked> <span>${SCOPE_TEXT[scope]}</span></label>`)}
</fieldset>
<p class="muted">Only the boxes you leave ticked are granted. You can disconnect the app at any time.</p>
<button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`);
}

export function errorPage(message: string): string {
  return layout('Cannot continue', html`<h1>Cannot continue</h1><p class="error" role="alert">${message}</p><p class="muted">Go back to the app and connect again.</p>`);
}
