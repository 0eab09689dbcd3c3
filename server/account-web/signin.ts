import type { Request, Response, Router } from 'express';
import { readCookie } from '../web/cookies.js';
import { formMatchesCookie } from '../web/csrf.js';
import { html, type SafeHtml } from '../web/html.js';
import { renderShell, sendPage } from '../web/page.js';
import { SESSION_LIFETIME_MS } from '../auth/sessions.js';
import { SESSION_COOKIE, type AccountArea, type Flash } from './area.js';
import { flashBox } from './frame.js';

const MIN_PASSWORD = 8;

function sendCard(res: Response, status: number, title: string, body: SafeHtml): void {
  sendPage(
    res,
    status,
    renderShell({ title, narrow: true, body: html`<div class="card"><p class="muted small">Quire account</p>${body}</div>` }),
  );
}

function signInForm(area: AccountArea, req: Request, res: Response, status: number, view: { flash?: Flash; username?: string } = {}): void {
  const token = area.cookies.formToken(req, res);
  sendCard(
    res,
    status,
    'Sign in',
    html`<h1>Sign in</h1>${flashBox(view.flash)}
<form method="post" action="${area.path}/signin"><input type="hidden" name="csrf" value="${token}">
<label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${view.username ?? ''}">
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<p class="muted small">No password yet? Use the one-time sign-in link printed when your account was created, or ask your server's operator for a new one.</p>`,
  );
}

async function startSession(area: AccountArea, res: Response, user: string, flash?: Flash): Promise<void> {
  const { token, session } = await area.sessions.create(user);
  area.cookies.set(res, SESSION_COOKIE, token, { sameSite: 'lax', maxAgeMs: SESSION_LIFETIME_MS });
  if (flash) area.flashes.set(session.id, flash);
  res.redirect(303, `${area.path}/`);
}

async function signIn(area: AccountArea, req: Request, res: Response): Promise<void> {
  const result = await area.services.signins.signIn(String(req.body.username ?? ''), String(req.body.password ?? ''), req.ip);
  if (!result.ok) {
    if (result.retryAfter) res.setHeader('Retry-After', String(result.retryAfter));
    return signInForm(area, req, res, result.status, { username: result.username, flash: { kind: 'error', text: result.message } });
  }
  await startSession(area, res, result.user);
}

async function welcomeForm(area: AccountArea, req: Request, res: Response, token: string, status = 200, flash?: Flash): Promise<void> {
  const user = await area.links.peek(token);
  if (!user) {
    return sendCard(
      res,
      410,
      'Link expired',
      html`<h1>This sign-in link no longer works</h1>
<p>Links work once and for 24 hours. Ask the server's operator for a new one (<code>quire user add</code> prints one for new users), or <a href="${area.path}/signin">sign in</a> if you already set a password.</p>`,
    );
  }
  const csrf = area.cookies.formToken(req, res);
  sendCard(
    res,
    status,
    'Set your password',
    html`<h1>Welcome, ${user}</h1>${flashBox(flash)}
<p>Choose a password for the account area and for connecting apps to your vault.</p>
<form method="post" action="${area.path}/welcome"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="token" value="${token}">
<input type="text" name="username" value="${user}" autocomplete="username" hidden>
<label for="password">New password</label><input type="password" id="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" required aria-describedby="password-hint">
<p class="hint" id="password-hint">At least ${MIN_PASSWORD} characters.</p>
<label for="confirm">Repeat it</label><input type="password" id="confirm" name="confirm" autocomplete="new-password" required>
<button type="submit">Set password and sign in</button></form>`,
  );
}

async function setPassword(area: AccountArea, req: Request, res: Response): Promise<void> {
  const token = String(req.body.token ?? '');
  const password = String(req.body.password ?? '');
  if (password.length < MIN_PASSWORD)
    return welcomeForm(area, req, res, token, 400, { kind: 'error', text: `Use at least ${MIN_PASSWORD} characters.` });
  if (password !== String(req.body.confirm ?? ''))
    return welcomeForm(area, req, res, token, 400, { kind: 'error', text: 'The two passwords differ.' });
  const user = await area.links.redeem(token);
  if (!user) return welcomeForm(area, req, res, token);
  await area.services.accounts.setPassword(user, password);
  // A new password ends every other browser session of this user.
  await area.sessions.endAllFor(user);
  await startSession(area, res, user, { kind: 'notice', text: 'Your password is set. Welcome to your vault.' });
}

/** Pre-session forms: their CSRF token is the SameSite=Strict form cookie's. */
function guarded(area: AccountArea, action: (area: AccountArea, req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response) => {
    if (!formMatchesCookie(req)) {
      return sendCard(
        res,
        403,
        'Refused',
        html`<h1>That form was refused</h1><p>It did not come from this site's own page (security check). <a href="${area.path}/signin">Start again</a>.</p>`,
      );
    }
    await action(area, req, res);
  };
}

/** Sign-in, the one-time welcome link and sign-out: the routes that work without a session. */
export function signinRoutes(router: Router, area: AccountArea): void {
  router.get('/signin', async (req, res) => {
    if (await area.sessions.find(readCookie(req, SESSION_COOKIE))) return res.redirect(303, `${area.path}/`);
    const out = req.query.out === '1' ? { kind: 'notice' as const, text: 'You are signed out.' } : undefined;
    signInForm(area, req, res, 200, { flash: out });
  });
  router.post('/signin', guarded(area, signIn));
  router.get('/welcome', (req, res) => welcomeForm(area, req, res, String(req.query.token ?? '')));
  router.post('/welcome', guarded(area, setPassword));
}
