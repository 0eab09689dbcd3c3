import { DEFAULT_PLAN } from '../../server/accounts/plans.js';
import type { ConfigFlags } from '../../server/config.js';
import { VaultRegistry } from '../../server/vaults/user-vault.js';
import { SessionStore } from '../../server/auth/sessions.js';
import { SigninLinks, signinUrl } from '../../server/auth/signin-links.js';
import { UsageError } from './usage-error.js';
import { readStdin, withCliContext, type CliContext } from './context.js';

export function userCommand(flags: ConfigFlags, args: string[], values: { plan?: string }): Promise<void> {
  return withCliContext(flags, (ctx) => userAction(ctx, flags, args, values));
}

async function userAction(
  { config, store, accounts }: CliContext,
  flags: ConfigFlags,
  args: string[],
  values: { plan?: string },
): Promise<void> {
  const [action, name, plan] = args;
  // The running server redeems the token from the shared store. The link points where that
  // server said it is reachable when it started, unless --base-url says otherwise.
  const printLink = async (user: string) => {
    const token = await new SigninLinks(store).create(user);
    const accountUrl = (!flags.baseUrl && (await store.server.accountUrl())) || config.accountUrl;
    console.log(`one-time sign-in link for ${user} (sets a password; valid 24 hours, works once):\n  ${signinUrl(accountUrl, token)}`);
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
      await accounts.requireUser(name);
      await printLink(name);
      return;
    }
    case 'list':
      for (const u of await accounts.users()) console.log(`${u.name}\t${u.plan}\t${u.created_at}`);
      return;
    case 'plan':
      if (!name || !plan) throw new UsageError('usage: quire user plan NAME PLAN');
      await accounts.setPlan(name, checkPlan(plan));
      console.log(`${name} is now on plan ${plan}`);
      return;
    case 'passwd': {
      if (!name) throw new UsageError('usage: quire user passwd NAME   (reads the password from stdin)');
      await accounts.requireUser(name);
      const password = await readStdin();
      if (password.length < 8) throw new UsageError('passwords need at least 8 characters');
      await accounts.setPassword(name, password);
      await new SessionStore(store).endAllFor(name);
      console.log(`password set for ${name}; their browser sessions are signed out`);
      return;
    }
    default:
      throw new UsageError('usage: quire user add|list|plan|passwd|link ...');
  }
}
