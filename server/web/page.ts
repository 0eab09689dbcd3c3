import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { html, SafeHtml } from './html.js';
import { COPY_SCRIPT, STYLESHEET } from './style.js';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * Only our own stylesheet and copy script may run: allowed by hash, so an injected
 * `<script>` or `style` attribute would not. No framing anywhere.
 */
const CSP = [
  "default-src 'none'",
  `style-src ${sha256(STYLESHEET)}`,
  `script-src ${sha256(COPY_SCRIPT)}`,
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export interface Shell {
  title: string;
  /** Header bar (the account area's navigation); absent on sign-in and consent pages. */
  header?: SafeHtml;
  body: SafeHtml;
  /** A single centred card (sign-in, consent, confirmations). */
  narrow?: boolean;
}

/** A whole document around a page's body, with the stylesheet and the copy script. */
export function renderShell(shell: Shell): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light">
<title>${shell.title} · Quire</title><style>${new SafeHtml(STYLESHEET)}</style></head>
<body><a class="skip" href="#content">Skip to content</a>
${shell.header ?? ''}
<main id="content" class="${shell.narrow ? 'narrow' : ''}">${shell.body}</main>
<script>${new SafeHtml(COPY_SCRIPT)}</script></body></html>`.value;
}

/**
 * Every browser page goes out through here: no caching, and the page's own CSP. No
 * framing, no sniffing and the referrer policy come with every response
 * (server/http/security-headers.ts).
 */
export function sendPage(res: Response, status: number, page: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', CSP);
  res.status(status).type('html').send(page);
}
