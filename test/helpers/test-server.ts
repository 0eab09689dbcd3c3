import { loadConfig, type Config } from '../../server/config.js';
import { createLogger } from '../../server/log/logger.js';
import { startServer, type RunningServer } from '../../server/server.js';
import type { KeyScope } from '../../server/accounts/account-store.js';
import { tempDir } from './temp-dir.js';

/** One line the server logged, parsed (`level` by name, `msg`, and the line's fields). */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

export interface TestServer extends RunningServer {
  dataDir: string;
  /** Everything the server logged at QUIRE_LOG_LEVEL, kept here instead of printed. */
  logs: LogLine[];
  /** Creates a user (plan `personal` unless given) if missing, then a key; returns the key value. */
  key: (user: string, scope: KeyScope, opts?: { plan?: string; device?: boolean; agent?: string; name?: string }) => Promise<string>;
  /** fetch against the server with an optional bearer key. */
  api: (path: string, init?: RequestInit & { key?: string; json?: unknown }) => Promise<Response>;
  stop: () => Promise<void>;
}

/**
 * scrypt at a sixteenth of its cost for the passwords test servers set: the tests sign in a
 * few hundred times, at ~60 ms of CPU each at full cost. Checking still runs scrypt, at the
 * costs stored with each hash (a password set by the CLI is checked at full cost).
 */
const TEST_PASSWORD_COST = { N: 1024, r: 8, p: 1 };

/** A real listening server on a random loopback port over a temp data folder. */
export async function startTestServer(env: Record<string, string> = {}, tweak: (c: Config) => Config = (c) => c): Promise<TestServer> {
  const dir = tempDir('quire-data-');
  const loaded = loadConfig({ ...env }, { data: dir.path, port: '0', host: '127.0.0.1' });
  const config = tweak({ ...loaded, passwordCost: TEST_PASSWORD_COST });
  const logs: LogLine[] = [];
  const running = await startServer(config, createLogger(config.logLevel, { write: (line: string) => void logs.push(JSON.parse(line)) }));
  let n = 0;
  const key: TestServer['key'] = async (user, scope, opts = {}) => {
    const accounts = running.services.accounts;
    if (!(await accounts.user(user))) {
      await accounts.addUser(user, opts.plan ?? 'personal');
      await running.services.vaults.get(user);
    }
    const { key: value } = await accounts.createKey({
      user,
      name: opts.name ?? `${scope}-${++n}`,
      scope,
      device: opts.device,
      agent: opts.agent,
    });
    return value;
  };
  const api: TestServer['api'] = (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.key) headers.set('authorization', `Bearer ${init.key}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(`${running.url}${path}`, { ...init, headers, body });
  };
  return {
    ...running,
    dataDir: dir.path,
    logs,
    key,
    api,
    stop: async () => {
      await running.close();
      dir.cleanup();
    },
  };
}
