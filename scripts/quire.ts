#!/usr/bin/env node
/**
 * The operator CLI. Every command takes `--data DIR` (default $QUIRE_DATA, else ./data).
 *   quire serve [--port N] [--host ADDR] [--base-url URL]
 *   quire user add NAME [--plan PLAN] | user list | user plan NAME PLAN | user passwd NAME | user link NAME
 *   quire key create USER --name NAME --scope read|write [--device] [--agent NAME] | key list USER | key revoke USER NAME
 *   quire agent add USER NAME --mode MODE [--read PREFIX]... [--write PREFIX]... [--description TEXT]
 *     | agent set USER NAME ... | agent list USER | agent remove USER NAME
 *   quire sync DIR --server URL --key KEY|- [--watch | --once]
 */
import * as nodeModule from 'node:module';
import { parseArgs } from 'node:util';
import { UsageError } from './commands/usage-error.js';

// Node ≥ 22.1 keeps the compiled code of the modules a command loads (all dynamically
// imported, below) between runs, a good part of a short run's start-up; older Nodes have no
// such function and compile each time.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const USAGE = `usage:
  quire serve [--port N] [--host ADDR] [--base-url URL] [--data DIR]
  quire user add NAME [--plan PLAN] | list | plan NAME PLAN | passwd NAME (password on stdin) | link NAME
  quire key create USER --name NAME --scope read|write [--device] [--agent NAME] | list USER | revoke USER NAME
  quire agent add USER NAME --mode read|propose|write [--read PREFIX]... [--write PREFIX]... [--description TEXT]
  quire agent set USER NAME [--mode MODE] [--read PREFIX]... [--write PREFIX]... [--description TEXT] | list USER | remove USER NAME
  quire sync DIR --server URL --key KEY|- [--watch | --once]`;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'base-url': { type: 'string' },
      plan: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      device: { type: 'boolean' },
      agent: { type: 'string' },
      mode: { type: 'string' },
      read: { type: 'string', multiple: true },
      write: { type: 'string', multiple: true },
      description: { type: 'string' },
      server: { type: 'string' },
      key: { type: 'string' },
      watch: { type: 'boolean' },
      once: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) throw new UsageError(USAGE);
  const flags = { data: values.data, port: values.port, host: values.host, baseUrl: values['base-url'] };
  // Each command loads only its own modules: `serve` pulls in the whole server, which made
  // every short command take about a second.
  switch (command) {
    case 'serve':
      return (await import('./commands/serve.js')).serveCommand(flags);
    case 'user':
      return (await import('./commands/users.js')).userCommand(flags, rest, values);
    case 'key':
      return (await import('./commands/keys.js')).keyCommand(flags, rest, values);
    case 'agent':
      return (await import('./commands/agents.js')).agentCommand(flags, rest, values);
    case 'sync':
      return (await import('./commands/sync.js')).syncCommand(rest, values);
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch(async (err: unknown) => {
  process.exitCode = err instanceof UsageError ? 2 : 1;
  if (err instanceof UsageError) return console.error(err.message);
  // Loaded on the way out only: a run that succeeds (an idle `quire sync`) never needs them.
  const [{ ConfigError }, { isQuireError }, { SyncError }] = await Promise.all([
    import('../server/config/config-error.js'),
    import('../vault-store/errors.js'),
    import('./sync/sync-error.js'),
  ]);
  if (err instanceof ConfigError) console.error(err.message);
  else if (isQuireError(err) || err instanceof SyncError) console.error(`quire: ${err.message}`);
  else console.error(`quire: ${(err as Error).stack ?? err}`);
});
