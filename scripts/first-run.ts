import { DEFAULT_PLAN } from '../server/accounts/plans.js';
import type { Services } from '../server/services.js';
import { DEMO_PAGES } from './demo-vault.js';

export const OWNER = 'owner';

/**
 * On an empty data folder: the owner account, a small demo vault and a write key, printed
 * once. Returns the text to print, or undefined when the folder already has users.
 */
export async function firstRun(services: Services): Promise<string | undefined> {
  if (services.accounts.users().length > 0) return undefined;
  await services.accounts.addUser(OWNER, DEFAULT_PLAN);
  const { pages } = await services.vaults.get(OWNER);
  const author = { name: 'quire', email: 'quire@quire.invalid', trailers: { 'Quire-Actor': 'system:first-run' } };
  for (const [path, content] of Object.entries(DEMO_PAGES)) await pages.write(author, { path, content });
  const { key } = await services.accounts.createKey({ user: OWNER, name: 'first-key', scope: 'write' });
  const base = services.config.baseUrl;
  return [
    '',
    `First run: created user "${OWNER}" with a demo vault in ${services.config.dataDir}/vaults/${OWNER}`,
    '',
    'Your write key (shown once, store it now):',
    `  ${key}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${key}" ${base}/vault/pages`,
    '',
  ].join('\n');
}
