import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { authorizeUrl, Browser, newClientId, PASSWORD, pkce, readForm, userWithPassword } from '../server/oauth/flow.js';

/** A signed-in scripted browser and the CSRF token of its keys page. */
async function signedIn(server: TestServer, user: string): Promise<{ browser: Browser; csrf: string }> {
  const browser = new Browser();
  const { hidden } = readForm(await (await browser.get(`${server.url}/account/signin`)).text());
  const res = await browser.post(`${server.url}/account/signin`, [...hidden, ['username', user], ['password', PASSWORD]]);
  expect(res.status).to.equal(303);
  const keysPage = await (await browser.get(`${server.url}/account/keys`)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(keysPage)?.[1];
  if (!csrf) throw new Error('no csrf token on the keys page');
  return { browser, csrf };
}

/** Posts the create-key form with the session's cookies and extra headers, as a forged page would. */
function postKey(server: TestServer, browser: Browser, fields: [string, string][], headers: Record<string, string>): Promise<Response> {
  return fetch(`${server.url}/account/keys`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...browser.cookieHeader(), ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Cross-site request forgery against the account area: every state change needs our own page. */
describe('attack: forged cross-site posts to the account area', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    await userWithPassword(server, 'ann');
    await userWithPassword(server, 'mallory');
  });
  after(() => server.stop());

  const keyCount = async () => (await server.services.accounts.keys('ann')).length;

  it("refuses a post from another site, a cross-site fetch, a missing token and another session's token; creates nothing", async () => {
    const ann = await signedIn(server, 'ann');
    const mallory = await signedIn(server, 'mallory');
    const before = await keyCount();
    const fields = (csrf?: string): [string, string][] => [
      ...(csrf ? [['csrf', csrf] as [string, string]] : []),
      ['name', 'forged'],
      ['scope', 'write'],
    ];
    const forgeries: [string, [string, string][], Record<string, string>][] = [
      ['Origin of another site', fields(ann.csrf), { origin: 'https://evil.example' }],
      ['Sec-Fetch-Site cross-site', fields(ann.csrf), { 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site same-site (a sibling subdomain)', fields(ann.csrf), { 'sec-fetch-site': 'same-site' }],
      ['Origin "null" (sandboxed frame)', fields(ann.csrf), { origin: 'null' }],
      ['no token', fields(), {}],
      [
        'an empty token',
        [
          ['csrf', ''],
          ['name', 'forged'],
          ['scope', 'write'],
        ],
        {},
      ],
      ["another user's token", fields(mallory.csrf), {}],
    ];
    for (const [name, body, headers] of forgeries) {
      const res = await postKey(server, ann.browser, body, headers);
      expect(res.status, name).to.equal(403);
      expect(await res.text(), name).not.to.contain('quire_');
    }
    expect(await keyCount()).to.equal(before);
    // The same post from our own page goes through, so the refusals above are the checks at work.
    const own = await postKey(server, ann.browser, fields(ann.csrf), { origin: server.url, 'sec-fetch-site': 'same-origin' });
    expect(own.status).to.equal(200);
    expect(await keyCount()).to.equal(before + 1);
  });

  it("refuses a forged undo of an agent's changes and a forged page restore; undoes nothing", async () => {
    await server.services.agents.put('ann', 'bot', { mode: 'write' });
    const botKey = await server.key('ann', 'write', { agent: 'bot', name: 'bot-key' });
    const made = await server.api('/vault/page', { key: botKey, method: 'POST', json: { path: 'Inbox/bot.md', content: 'by the bot\n' } });
    expect(made.status).to.equal(201);
    const ann = await signedIn(server, 'ann');
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    const post = (action: string, fields: [string, string][], headers: Record<string, string>) =>
      fetch(`${server.url}/account${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...ann.browser.cookieHeader(), ...headers },
        body: new URLSearchParams(fields).toString(),
      });
    const forged: [string, string, [string, string][], Record<string, string>][] = [
      [
        'undo from another site',
        '/agents/bot/undo',
        [
          ['csrf', ann.csrf],
          ['since', since],
        ],
        { origin: 'https://evil.example' },
      ],
      ['undo without the token', '/agents/bot/undo', [['since', since]], {}],
      [
        'restore without the token',
        '/history/restore',
        [
          ['path', 'Inbox/bot.md'],
          ['at', 'HEAD~1'],
        ],
        {},
      ],
    ];
    for (const [name, action, fields, headers] of forged) expect((await post(action, fields, headers)).status, name).to.equal(403);
    expect((await server.api('/vault/page/Inbox/bot.md', { key: botKey })).status).to.equal(200);
    // Our own page's post undoes it, so the refusals above are the checks at work.
    const own = await post(
      '/agents/bot/undo',
      [
        ['csrf', ann.csrf],
        ['since', since],
      ],
      { origin: server.url },
    );
    expect(own.status).to.equal(303);
    expect((await server.api('/vault/page/Inbox/bot.md', { key: botKey })).status).to.equal(404);
  });

  it('refuses a forged sign-in post (login CSRF) ', async () => {
    const signin = await fetch(`${server.url}/account/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ username: 'mallory', password: PASSWORD }).toString(),
    });
    expect(signin.status).to.equal(403);
    expect(signin.headers.getSetCookie().join()).not.to.contain('quire_session');
  });

  it("refuses a consent post without the sign-in page's strict cookie or with a wrong form token", async () => {
    const browser = new Browser();
    const start = await browser.get(
      authorizeUrl(server, { client_id: await newClientId(server), code_challenge: pkce().challenge, scope: 'mcp:write' }),
    );
    const login = readForm(await start.text());
    const consentPage = await browser.post(login.action, [...login.hidden, ['username', 'ann'], ['password', PASSWORD]]);
    const consent = readForm(await consentPage.text());
    const approve: [string, string][] = [
      ['scope', 'mcp:write'],
      ['decision', 'approve'],
    ];
    const tampered = consent.hidden.map(([k, v]) => [k, k === 'csrf' ? `${v}x` : v] as [string, string]);
    // A cross-site page cannot send the SameSite=Strict cookie: what arrives is the form alone.
    for (const [name, res] of [
      ['no cookie', await browser.post(consent.action, [...consent.hidden, ...approve], false)],
      ['wrong form token', await browser.post(consent.action, [...tampered, ...approve])],
    ] as const) {
      expect(res.status, name).to.equal(403);
      expect(res.headers.get('location'), name).to.equal(null);
    }
    // The page's own post still works, so the refusals above come from the checks.
    const done = await browser.post(consent.action, [...consent.hidden, ...approve]);
    expect(new URL(done.headers.get('location')!).searchParams.get('code')).to.be.a('string');
  });

  it('keeps the session cookie away from scripts and cross-site requests', async () => {
    const browser = new Browser();
    const { hidden } = readForm(await (await browser.get(`${server.url}/account/signin`)).text());
    const res = await browser.post(`${server.url}/account/signin`, [...hidden, ['username', 'ann'], ['password', PASSWORD]]);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('quire_session='))!;
    expect(cookie)
      .to.match(/; HttpOnly/)
      .and.match(/; SameSite=(Lax|Strict)/);
  });
});
