import { createHash, randomBytes } from 'node:crypto';
import type { TestServer } from '../../helpers/test-server.js';
import { LIST_TOOLS, rpc } from '../mcp/mcp-client.js';

export const REDIRECT = 'http://127.0.0.1:9/callback';
export const PASSWORD = 'correct horse battery';

export async function userWithPassword(server: TestServer, name = 'ann'): Promise<void> {
  if (!(await server.services.accounts.user(name))) await server.services.accounts.addUser(name, 'personal');
  await server.services.accounts.setPassword(name, PASSWORD);
}

export async function registerClient(server: TestServer, metadata: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test App', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
  });
}

export async function newClientId(server: TestServer, metadata: Record<string, unknown> = {}): Promise<string> {
  const res = await registerClient(server, metadata);
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()).client_id;
}

/** A tiny scripted browser: keeps cookies, reads a page's form, posts it back. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  /** `headers` go with every request (e.g. the X-Forwarded-For a proxy would add). */
  constructor(private readonly headers: Record<string, string> = {}) {}

  async get(url: string | URL): Promise<Response> {
    return this.keep(await fetch(url, { redirect: 'manual', headers: { ...this.headers, ...this.cookieHeader() } }));
  }

  async post(action: string, fields: [string, string][], withCookies = true): Promise<Response> {
    return this.keep(
      await fetch(action, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...this.headers, 'content-type': 'application/x-www-form-urlencoded', ...(withCookies ? this.cookieHeader() : {}) },
        body: new URLSearchParams(fields).toString(),
      }),
    );
  }

  /** The Cookie header this browser sends, for requests a test forges around it. */
  cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  private keep(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair.split('=');
      this.cookies.set(name, value.join('='));
    }
    return res;
  }
}

export interface PageForm {
  action: string;
  hidden: [string, string][];
  scopes: string[];
}

export function readForm(page: string): PageForm {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  if (!action) throw new Error(`no form in page:\n${page}`);
  const hidden = [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]] as [string, string]);
  const scopes = [...page.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1]);
  return { action: action.replace(/&amp;/g, '&'), hidden, scopes };
}

export interface Approval {
  user?: string;
  password?: string;
  decision?: 'approve' | 'deny';
  /** Scopes the user unticks on the consent page. */
  untick?: string[];
  /** An agent chosen in "Act as" (default: the user themself). */
  actAs?: string;
}

/** Signs in and decides on the consent page; returns where the browser is sent back to. */
export async function approveInBrowser(authorizationUrl: string | URL, approval: Approval = {}, browser = new Browser()): Promise<URL> {
  const start = await browser.get(authorizationUrl);
  if (start.status === 302) return new URL(start.headers.get('location')!);
  if (start.status !== 200) throw new Error(`authorize answered ${start.status}: ${await start.text()}`);
  const login = readForm(await start.text());
  const consentRes = await browser.post(login.action, [
    ...login.hidden,
    ['username', approval.user ?? 'ann'],
    ['password', approval.password ?? PASSWORD],
  ]);
  if (consentRes.status !== 200) throw new Error(`sign-in answered ${consentRes.status}`);
  const consent = readForm(await consentRes.text());
  const ticked = consent.scopes.filter((s) => !(approval.untick ?? []).includes(s)).map((s) => ['scope', s] as [string, string]);
  const actAs: [string, string][] = approval.actAs ? [['act_as', approval.actAs]] : [];
  const done = await browser.post(consent.action, [...consent.hidden, ...ticked, ...actAs, ['decision', approval.decision ?? 'approve']]);
  if (done.status !== 302) throw new Error(`consent answered ${done.status}: ${await done.text()}`);
  return new URL(done.headers.get('location')!);
}

/** The OAuth error code of a refusal shown as a page; throws on anything else, a redirect above all. */
export async function refusalPage(res: Response): Promise<string> {
  const type = res.headers.get('content-type') ?? '';
  if (res.status !== 400 || res.headers.has('location') || !type.startsWith('text/html')) {
    throw new Error(`expected a 400 page, got ${res.status} ${type} ${res.headers.get('location') ?? ''}`);
  }
  const code = /Error <code>([a-z_]+)<\/code>/.exec(await res.text())?.[1];
  if (!code) throw new Error('the refusal page names no error code');
  return code;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(server: TestServer, params: Record<string, string | undefined>): URL {
  const url = new URL(`${server.url}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge_method: 'S256',
    state: 'state-1',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

export function tokenRequest(server: TestServer, fields: Record<string, string | undefined>): Promise<Response> {
  const body = new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
  return fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
}

export interface Connected {
  clientId: string;
  access_token: string;
  refresh_token: string;
  scope: string;
  code: string;
  verifier: string;
  /** Where consent sent the browser back to, code included. */
  back: URL;
}

/** The whole authorization-code flow by hand: register, authorize, consent, exchange. */
export async function connectApp(
  server: TestServer,
  opts: { scope?: string; approval?: Approval; clientId?: string; redirectUri?: string } = {},
): Promise<Connected> {
  const clientId = opts.clientId ?? (await newClientId(server));
  const { verifier, challenge } = pkce();
  const back = await approveInBrowser(
    authorizeUrl(server, { client_id: clientId, code_challenge: challenge, scope: opts.scope, redirect_uri: opts.redirectUri ?? REDIRECT }),
    opts.approval,
  );
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  const res = await tokenRequest(server, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: opts.redirectUri ?? REDIRECT,
  });
  if (res.status !== 200) throw new Error(`token answered ${res.status}: ${await res.text()}`);
  return { clientId, code, verifier, back, ...(await res.json()) };
}

/** tools/list on /mcp with a bearer token: the proof that a token works. */
export function listTools(server: TestServer, token: string): Promise<Response> {
  return rpc(server.url, LIST_TOOLS, { authorization: `Bearer ${token}` });
}
