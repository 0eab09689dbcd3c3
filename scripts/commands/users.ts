import { DEFAULT_PLAN } from '../../server/accounts/plans.js';
import type { ConfigFlags } from '../../server/config.js';
import { VaultRegistry } from '../../server/vaults/user-vault.js';
import { SessionStore } from '../../server/web/sessions.js';
import { SigninLinks, signinUrl } from '../../server/web/signin-links.js';
import { UsageError } from './usage-error.js';
import { cliContext, readStdin } from './context.js';

export async function userCommand(flags: ConfigFlags, args: string[], values: { plan?: string }): Promise<void> {
  const { config, accounts } = cliContext(flags);
  const [action, name, plan] = args;
  // The running server redeems the token from the shared file in the data folder.
  const printLink = async (user: string) => {
    const token = await new SigninLinks(config.dataDir).create(user);
    console.log(`one-time sign-in link for ${user} (sets a password; valid 24 hours, works once):\n  ${signinUrl(config.accountUrl, token)}`);
  };
  const checkPlan = (p: string) => {
    if (!config.plans[p]) throw new UsageError(`unknown plan "${p}" (plans: ${Object.keys(config.plans).join(', ')})`);
    return p;
  };
  switch (action) {
    case 'add': {
      if (!name) throw new UsageError('usage: quire user add NAME [--plan PLAN]');
      const user = await accounts.addUser(name, checkPlan(values.plan ?? DEFAULT_PLAN));
      // Create the vault now so the folder exists for the user's editor right away.
      const vaults = new VaultRegistry(config.dataDir, { watch: false });
      await vaults.get(name);
      await vaults.close();
      console.log(`created user ${user.name} (plan ${user.plan})`);
      await printLink(user.name);
      return;
    }
    case 'link': {
      if (!name) throw new UsageError('usage: quire user link NAME   (a new one-time sign-in link, e.g. to reset a password)');
      accounts.requireUser(name);
      await printLink(name);
      return;
    }
    case 'list':
      for (const u of accounts.users()) console.log(`${u.name}\t${u.plan}\t${u.created_at}`);
      return;
    case 'plan':
      if (!name || !plan) throw new UsageError('usage: quire user plan NAME PLAN');
      await accounts.setPlan(name, checkPlan(plan));
      console.log(`${name} is now on plan ${plan}`);
      return;
    case 'passwd': {
      if (!name) throw new UsageError('usage: quire user passwd NAME   (reads the password from stdin)');
      accounts.requireUser(name);
      const password = await readStdin();
      if (password.length < 8) throw new UsageError('passwords need at least 8 characters');
      await accounts.setPassword(name, password);
      await new SessionStore(config.dataDir).endAllFor(name);
      console.log(`password set for ${name}; their browser sessions are signed out`);
      return;
    }
    default:
      throw new UsageError('usage: quire user add|list|plan|passwd|link ...');
  }
}
