import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../../server/config.js';
import { pktLine } from '../../../server/git-http/git-service.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { AUTHOR, git, readRef, remoteUrl, type GitResult } from './git-client.js';

/**
 * A fresh server before each test of the enclosing `describe`, with alice's vault (one page,
 * notes/a.md) cloned to `client`, ready to push; after each test the vault is checked with
 * `git fsck --strict` and the server stopped.
 */
export function pushSetupPerTest(env: Record<string, string> = {}, tweak?: (c: Config) => Config): PushSetup {
  const setup = new PushSetup();
  beforeEach(() => setup.start(env, tweak));
  afterEach(() => setup.stop());
  return setup;
}

export class PushSetup {
  server!: TestServer;
  /** alice's write key, the one `client` pushes with. */
  key!: string;
  vaultDir!: string;
  client!: string;

  async start(env: Record<string, string>, tweak?: (c: Config) => Config): Promise<void> {
    this.server = await startTestServer(env, tweak);
    this.key = await this.server.key('alice', 'write');
    await this.server.api('/vault/page', { method: 'POST', key: this.key, json: { path: 'notes/a.md', content: 'alpha' } });
    this.vaultDir = (await this.server.services.vaults.get('alice')).dir;
    this.client = join(this.server.dataDir, 'client');
    const cloned = await git(['clone', '-q', remoteUrl(this.server.url, this.key), this.client]);
    expect(cloned.status, cloned.stderr).to.equal(0);
  }

  async stop(): Promise<void> {
    if (this.vaultDir) gitIn(this.vaultDir, 'fsck', '--strict');
    await this.server.stop();
  }

  /** Writes `path` in the clone and commits it. */
  async commitFile(path: string, content: string | Buffer, message = `edit ${path}`): Promise<void> {
    writeFileSync(join(this.client, path), content);
    gitIn(this.client, 'add', path);
    gitIn(this.client, ...AUTHOR, 'commit', '-q', '-m', message);
  }

  /** `git push origin …args` from the clone. */
  push(...args: string[]): Promise<GitResult> {
    return git(['push', 'origin', ...args], this.client);
  }

  /** The vault's main branch on the server. */
  head(): string {
    return readRef(join(this.vaultDir, '.git'), 'refs/heads/main');
  }
}

/** The start of a git-receive-pack request body: the command moving main from `old`, then a pack header. */
export function receivePackRequest(old: string): Buffer {
  const command = pktLine(`${old} ${'1'.repeat(40)} refs/heads/main\0report-status\n`) + '0000';
  return Buffer.concat([Buffer.from(command), Buffer.from('PACK\0\0\0\x02\0\0\0\x01')]);
}
