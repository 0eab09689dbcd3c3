import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const CLI = join(import.meta.dirname, '../../scripts/quire.ts');

describe('quire CLI', function () {
  this.timeout(30_000);
  let server: TestServer;

  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.stop());

  const quire = (...args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', CLI, ...args, '--data', server.dataDir], { encoding: 'utf8', input: '' });

  it('manages users and keys that a running server honours without a restart', async () => {
    expect(quire('user', 'add', 'dana', '--plan', 'pro')).to.match(/created user dana/);
    expect(quire('user', 'list')).to.match(/^dana\tpro\t/m);
    const key = quire('key', 'create', 'dana', '--name', 'laptop', '--scope', 'write', '--device');
    expect(key).to.match(/^quire_[A-Za-z0-9_-]{43}\n$/);
    const res = await server.api('/vault/page', { method: 'POST', key: key.trim(), json: { path: 'cli.md', content: 'from the CLI key' } });
    expect(res.status).to.equal(201);

    const list = quire('key', 'list', 'dana');
    expect(list).to.match(/^laptop\twrite\tyes\t/m);
    expect(list).not.to.include(key.trim());

    quire('user', 'plan', 'dana', 'free');
    expect((await server.api('/vault/pages', { key: key.trim() })).status).to.equal(403);
    quire('user', 'plan', 'dana', 'personal');
    quire('key', 'revoke', 'dana', 'laptop');
    expect((await server.api('/vault/pages', { key: key.trim() })).status).to.equal(401);
  });

  it('fails with a clear message and non-zero exit on bad input', () => {
    const unknownPlan = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'user', 'add', 'erin', '--plan', 'gold', '--data', server.dataDir], { encoding: 'utf8' });
    expect(unknownPlan.status).to.equal(2);
    expect(unknownPlan.stderr).to.match(/unknown plan "gold"/);
    const noUser = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'key', 'create', 'ghost', '--name', 'k', '--scope', 'read', '--data', server.dataDir], { encoding: 'utf8' });
    expect(noUser.status).to.equal(1);
    expect(noUser.stdout).to.equal('');
    const badConfig = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'user', 'list', '--data', server.dataDir], { encoding: 'utf8', env: { ...process.env, PORT: 'abc', QUIRE_BASE_URL: 'nope' } });
    expect(badConfig.status).to.equal(1);
    expect(badConfig.stderr).to.include('PORT must be an integer').and.include('QUIRE_BASE_URL is not a URL');
  });

  it('sets a password from stdin', async () => {
    quire('user', 'add', 'fay');
    execFileSync(process.execPath, ['--import', 'tsx', CLI, 'user', 'passwd', 'fay', '--data', server.dataDir], { input: 'correct horse battery\n' });
    expect(await server.services.accounts.checkPassword('fay', 'correct horse battery')).to.equal(true);
    expect(await server.services.accounts.checkPassword('fay', 'wrong password')).to.equal(false);
  });
});
