import type { Request, Response } from 'express';
import { html, type SafeHtml } from '../web/html.js';
import { renderShell, sendPage } from '../web/page.js';
import type { AccountArea, Flash, Visit } from './area.js';

export const SECTIONS = [
  ['', 'Vault'],
  ['/history', 'History'],
  ['/keys', 'API keys'],
  ['/devices', 'Devices'],
  ['/apps', 'Connected apps'],
  ['/agents', 'Agents'],
  ['/proposals', 'Proposals'],
] as const;

export type Section = (typeof SECTIONS)[number][0];

function header(area: AccountArea, visit: Visit, current: Section): SafeHtml {
  return html`<header class="top"><div class="bar">
<a class="brand" href="${area.path}/">Quire</a>
<nav aria-label="Account">${SECTIONS.map(([path, label]) => html`<a href="${area.path}${path || '/'}"${path === current ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>
<div class="who"><span>Signed in as <strong>${visit.user}</strong></span>
${postForm(area, visit, '/signout', html`<button type="submit">Sign out</button>`)}</div>
</div></header>`;
}

export function flashBox(flash: Flash | undefined): SafeHtml | '' {
  if (!flash) return '';
  return flash.kind === 'error'
    ? html`<p class="error" role="alert">${flash.text}</p>`
    : html`<p class="notice" role="status">${flash.text}</p>`;
}

/** Sends one page of the signed-in area, with its navigation and any pending message. */
export function sendAccountPage(
  res: Response,
  area: AccountArea,
  visit: Visit,
  page: { title: string; section: Section; body: SafeHtml; status?: number; lead?: string },
): void {
  const body = html`<h1>${page.title}</h1>${page.lead ? html`<p class="lead">${page.lead}</p>` : ''}${flashBox(visit.flash)}${page.body}`;
  sendPage(res, page.status ?? 200, renderShell({ title: page.title, header: header(area, visit, page.section), body }));
}

/** A POST form of the signed-in area: the session's CSRF token rides along in every one. */
export function postForm(area: AccountArea, visit: Visit, action: string, inner: SafeHtml, className = ''): SafeHtml {
  return html`<form method="post" action="${area.path}${action}"${className ? html` class="${className}"` : ''}><input type="hidden" name="csrf" value="${visit.session.csrf}">${inner}</form>`;
}

/** "Are you sure?" without client-side script: its own page, with the one button that acts. */
export function sendConfirm(
  res: Response,
  area: AccountArea,
  visit: Visit,
  page: { section: Section; title: string; message: SafeHtml; action: string; button: string; back: string },
): void {
  const body = html`<div class="card">${page.message}
${postForm(area, visit, page.action, html`<div class="row actions"><button type="submit" class="danger">${page.button}</button><a class="button secondary" href="${area.path}${page.back}">Cancel</a></div>`)}</div>`;
  sendAccountPage(res, area, visit, { title: page.title, section: page.section, body });
}

/** Dates as people read them, in UTC so server and tests agree. */
export function when(iso: string | undefined | null): SafeHtml | string {
  if (!iso) return 'never';
  const date = new Date(iso);
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

export function emptyRow(columns: number, text: string): SafeHtml {
  return html`<tr><td colspan="${columns}" class="empty">${text}</td></tr>`;
}

/** After a POST: back to a page, with one message for it (post/redirect/get). */
export function redirectWith(res: Response, area: AccountArea, visit: Visit, path: string, flash: Flash): void {
  area.flashes.set(visit.session.id, flash);
  res.redirect(303, `${area.path}${path}`);
}

/** A non-empty query-string field, or undefined (repeated fields are refused by ignoring them). */
export function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
