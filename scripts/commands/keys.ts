import type { ConfigFlags } from '../../server/config.js';
import { UsageError } from './usage-error.js';
import { withCliContext, type CliContext } from './context.js';

type KeyFlags = { name?: string; scope?: string; device?: boolean; agent?: string };

export function keyCommand(flags: ConfigFlags, args: string[], values: KeyFlags): Promise<void> {
  return withCliContext(flags, (ctx) => keyAction(ctx, args, values));
}

async function keyAction({ accounts, usage, agents }: CliContext, args: string[], values: KeyFlags): Promise<void> {
  const [action, user, name] = args;
  switch (action) {
    case 'create': {
      if (!user || !values.name || (values.scope !== 'read' && values.scope !== 'write')) {
        throw new UsageError('usage: quire key create USER --name NAME --scope read|write [--device] [--agent NAME]');
      }
      if (values.agent) await agents.require(user, values.agent);
      const { key } = await accounts.createKey({
        user,
        name: values.name,
        scope: values.scope,
        device: values.device,
        agent: values.agent,
      });
      // The key alone on stdout, so scripts can capture it: it is never shown again.
      process.stdout.write(`${key}\n`);
      return;
    }
    case 'list': {
      if (!user) throw new UsageError('usage: quire key list USER');
      await accounts.requireUser(user);
      console.log(['name', 'scope', 'device', 'created', 'last used', 'device cursor', 'agent'].join('\t'));
      for (const k of await accounts.keys(user)) {
        const u = await usage.get(k.id);
        const cursor = k.device ? `${u.cursor ?? '-'}${u.cursor_at ? ` (${u.cursor_at})` : ''}` : '';
        console.log([k.name, k.scope, k.device ? 'yes' : 'no', k.created_at, u.last_used_at ?? 'never', cursor, k.agent ?? ''].join('\t'));
      }
      return;
    }
    case 'revoke':
      if (!user || !name) throw new UsageError('usage: quire key revoke USER NAME');
      await accounts.revokeKey(user, name);
      console.log(`revoked ${user}/${name}`);
      return;
    default:
      throw new UsageError('usage: quire key create|list|revoke ...');
  }
}
