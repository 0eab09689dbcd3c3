import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../server/config.js';
import { renderEnvExample } from '../../server/config/env-example.js';
import { envSchema } from '../../server/config/schema.js';
import { startTestServer } from '../helpers/test-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(ROOT, dir, f));
}

describe('config', () => {
  it('.env.example is what the schema generates (run `npm run env:example` after changing it)', () => {
    expect(readFileSync(join(ROOT, '.env.example'), 'utf8')).to.equal(renderEnvExample());
  });

  it('has every QUIRE_ variable the code names', () => {
    const named = new Set<string>();
    for (const file of [...sourceFiles('server'), ...sourceFiles('vault-store'), ...sourceFiles('scripts')]) {
      for (const [name] of readFileSync(file, 'utf8').matchAll(/\bQUIRE_[A-Z0-9_]*[A-Z0-9]\b/g)) named.add(name);
    }
    const known = Object.keys(envSchema.shape);
    expect([...named].filter((name) => !known.includes(name))).to.deep.equal([]);
  });

  it("defaults to today's values when nothing is set", () => {
    const config = loadConfig({});
    expect(config).to.deep.include({
      dataDir: resolve('./data'),
      port: 8787,
      host: '127.0.0.1',
      baseUrl: 'http://127.0.0.1:8787',
      accountUrl: 'http://127.0.0.1:8787/account',
    });
    expect(config).to.deep.include({ maxPageBytes: 1024 * 1024, watch: true, trustProxy: false, logLevel: 'info', indexPersistMs: 2000 });
    expect(config.watchTiming).to.deep.equal({ quietMs: 300, stabilityMs: 200, idleMs: 600_000 });
    expect(config.vaultIdleMs).to.equal(15 * 60_000);
    // A quarter of the machine's memory (or the cgroup's limit, when smaller).
    expect(config.memoryBudgetBytes).to.be.within(1, totalmem() / 4);
    expect(config).not.to.have.any.keys('llm', 'embeddings');
  });

  it('reads the tuning values, and flags win over the environment', () => {
    const config = loadConfig(
      {
        QUIRE_WATCH_SETTLE_MS: '50',
        QUIRE_WATCH_STABLE_MS: '0',
        QUIRE_WATCH_IDLE_MS: '5000',
        QUIRE_INDEX_PERSIST_MS: '10',
        QUIRE_MEMORY_BUDGET_MB: '64',
        QUIRE_VAULT_IDLE_MS: '0',
        PORT: '1',
        HOST: '::1',
        QUIRE_LOG_LEVEL: 'warn',
      },
      { port: '9000' },
    );
    expect(config.watchTiming).to.deep.equal({ quietMs: 50, stabilityMs: 0, idleMs: 5000 });
    expect(config).to.deep.include({ memoryBudgetBytes: 64 * 1024 * 1024, vaultIdleMs: 0 });
    expect(config).to.deep.include({ indexPersistMs: 10, port: 9000, baseUrl: 'http://[::1]:9000', logLevel: 'warn' });
  });

  it('lists every problem at once, each naming its variable and value', () => {
    const problems = problemsOf({
      PORT: 'abc',
      QUIRE_BASE_URL: 'nope',
      QUIRE_LOG_LEVEL: 'loud',
      QUIRE_WATCH_SETTLE_MS: '-1',
      QUIRE_WATCH: 'sometimes',
      QUIRE_LLM_MODEL: 'm',
      QUIRE_EMBEDDINGS_MODEL: 'e',
    });
    expect(problems).to.deep.equal([
      'PORT must be an integer from 0 to 65535: abc',
      'QUIRE_BASE_URL is not a URL: nope',
      'QUIRE_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent: loud',
      'QUIRE_WATCH must be true or false: sometimes',
      'QUIRE_WATCH_SETTLE_MS must be an integer from 0 to 60000: -1',
      'QUIRE_LLM_BASE_URL and QUIRE_LLM_MODEL must be set together',
      'QUIRE_EMBEDDINGS_MODEL needs QUIRE_EMBEDDINGS_BASE_URL (or QUIRE_LLM_BASE_URL)',
    ]);
  });

  it('builds the model settings, the embeddings ones defaulting to the chat ones', () => {
    const config = loadConfig({
      QUIRE_LLM_BASE_URL: 'https://llm.example/v1/',
      QUIRE_LLM_MODEL: 'chat',
      QUIRE_LLM_API_KEY: 'k',
      QUIRE_EMBEDDINGS_MODEL: 'embed',
    });
    expect(config.llm).to.deep.equal({ baseUrl: 'https://llm.example/v1', model: 'chat', apiKey: 'k' });
    expect(config.embeddings).to.deep.equal({ baseUrl: 'https://llm.example/v1', model: 'embed', apiKey: 'k' });
  });

  it('hands the tuning values down to the vaults: a watcher unused for QUIRE_WATCH_IDLE_MS is closed', async () => {
    const server = await startTestServer({ QUIRE_WATCH_IDLE_MS: '1000' });
    try {
      await server.key('alice', 'read');
      expect(server.services.vaults.watchers!.keys()).to.deep.equal(['alice']);
      await new Promise((resolve) => setTimeout(resolve, 1300));
      expect(server.services.vaults.watchers!.keys()).to.deep.equal([]);
    } finally {
      await server.stop();
    }
  });
});
