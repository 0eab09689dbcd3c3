import { expect } from 'chai';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { cli } from '../helpers/built-script.js';

describe('quire CLI', function () {
  this.timeout(30_000);
  let server: TestServer;

  // One server for all: each test works on a user of its own.
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());
  /** A user made in-process: the tests below are about other commands (`user add` is tested above). */
  const addUser = (name: string) => server.services.accounts.addUser(name, 'personal');

  const quire = (...args: string[]) =>
    execFileSync(process.execPath, cli(...args, '--data', server.dataDir), { encoding: 'utf8', input: '' });

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
    const unknownPlan = spawnSync(process.execPath, cli('user', 'add', 'erin', '--plan', 'gold', '--data', server.dataDir), {
      encoding: 'utf8',
    });
    expect(unknownPlan.status).to.equal(2);
    expect(unknownPlan.stderr).to.match(/unknown plan "gold"/);
    const noUser = spawnSync(process.execPath, cli('key', 'create', 'ghost', '--name', 'k', '--scope', 'read', '--data', server.dataDir), {
      encoding: 'utf8',
    });
    expect(noUser.status).to.equal(1);
    expect(noUser.stdout).to.equal('');
    const badConfig = spawnSync(process.execPath, cli('user', 'list', '--data', server.dataDir), {
      encoding: 'utf8',
      env: { ...process.env, PORT: 'abc', QUIRE_BASE_URL: 'nope' },
    });
    expect(badConfig.status).to.equal(1);
    expect(badConfig.stderr).to.include('PORT must be an integer').and.include('QUIRE_BASE_URL is not a URL');
  });

  it('prints sign-in links to the address the running server recorded, whatever its port', async () => {
    await addUser('gus');
    const link = /\n {2}(\S+)\n/.exec(quire('user', 'link', 'gus'))![1];
    expect(link).to.match(new RegExp(`^${server.url}/account/welcome\\?token=qsl_`));
    expect(server.url).not.to.include(':8787');
  });

  it('writes the database at the same time as the running server without losing either side', async () => {
    await addUser('hal');
    const run = (name: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, cli('key', 'create', 'hal', '--name', name, '--scope', 'read', '--data', server.dataDir), {
          stdio: 'ignore',
        });
        child.on('exit', resolve);
      });
    const fromCli = Promise.all(['c1', 'c2', 'c3'].map(run));
    const fromServer = Promise.all(
      Array.from({ length: 40 }, (_, i) => server.services.accounts.createKey({ user: 'hal', name: `s${i}`, scope: 'read' })),
    );
    const [codes] = await Promise.all([fromCli, fromServer]);
    expect(codes).to.deep.equal([0, 0, 0]);
    expect((await server.services.accounts.keys('hal')).length).to.equal(43);
  });

  it('sets a password from stdin', async () => {
    await addUser('fay');
    execFileSync(process.execPath, cli('user', 'passwd', 'fay', '--data', server.dataDir), { input: 'correct horse battery\n' });
    expect(await server.services.accounts.checkPassword('fay', 'correct horse battery')).to.equal(true);
    expect(await server.services.accounts.checkPassword('fay', 'wrong password')).to.equal(false);
  });
});

describe('quire CLI on a fresh data folder', function () {
  this.timeout(30_000);
  const dir = tempDir('quire-fresh-');
  after(() => dir.cleanup());

  it('adds the first user to a folder that does not exist yet, and prints a link to the default address', () => {
    const data = join(dir.path, 'not-yet');
    const { QUIRE_BASE_URL: _base, QUIRE_ACCOUNT_URL: _account, ...env } = process.env;
    const out = execFileSync(process.execPath, cli('user', 'add', 'ida', '--data', data), { encoding: 'utf8', env });
    expect(out)
      .to.match(/created user ida/)
      .and.match(/\n {2}http:\/\/127\.0\.0\.1:8787\/account\/welcome\?token=qsl_/);
    expect(execFileSync(process.execPath, cli('user', 'list', '--data', data), { encoding: 'utf8', env })).to.match(/^ida\tpersonal\t/m);
  });
});
