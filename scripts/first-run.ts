import { DEFAULT_PLAN } from '../server/accounts/plans.js';
import type { Services } from '../server/services.js';
import { SigninLinks, signinUrl } from '../server/auth/signin-links.js';
import { DEMO_PAGES } from './demo-vault.js';

export const OWNER = 'owner';

/** What an MCP client's configuration file needs to reach this server (it signs in by OAuth). */
export function mcpClientSnippet(baseUrl: string): string {
  return JSON.stringify({ mcpServers: { quire: { type: 'http', url: `${baseUrl}/mcp` } } }, null, 2);
}

/**
 * On an empty data folder: the owner account, a small demo vault, a write key and a one-time
 * sign-in link, printed once. Returns the text to print, or undefined when the folder
 * already has users: a second start prints no secret.
 */
export async function firstRun(services: Services): Promise<string | undefined> {
  if ((await services.accounts.users()).length > 0) return undefined;
  await services.accounts.addUser(OWNER, DEFAULT_PLAN);
  const { pages } = await services.vaults.get(OWNER);
  const author = { name: 'quire', email: 'quire@quire.invalid', trailers: { 'Quire-Actor': 'system:first-run' } };
  for (const [path, content] of Object.entries(DEMO_PAGES)) await pages.write(author, { path, content });
  const { key } = await services.accounts.createKey({ user: OWNER, name: 'first-key', scope: 'write' });
  const link = signinUrl(services.config.accountUrl, await new SigninLinks(services.store).create(OWNER));
  const base = services.config.baseUrl;
  const indent = (text: string) =>
    text
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n');
  return [
    '',
    `First run: created user "${OWNER}" with a demo vault in ${services.config.dataDir}/vaults/${OWNER}`,
    '',
    `Server: ${base}`,
    '',
    'Set your password and open your account (one-time link, valid 24 hours):',
    `  ${link}`,
    '',
    'Your write key (shown once, store it now):',
    `  ${key}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${key}" ${base}/vault/pages`,
    '',
    'MCP clients (Claude, Cursor, the MCP Inspector): add this server, then approve it in the browser:',
    indent(mcpClientSnippet(base)),
    '',
  ].join('\n');
}
