import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { agentCommand } from '../../../scripts/commands/agents.js';
import { keyCommand } from '../../../scripts/commands/keys.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { cli } from '../../helpers/built-script.js';

/** Runs a command in-process and returns what it printed (a CLI start costs seconds under tsx). */
async function printed(run: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const { log } = console;
  console.log = (...args: unknown[]) => lines.push(args.join(' '));
  try {
    await run();
  } finally {
    console.log = log;
  }
  return lines.join('\n');
}

describe('quire agent CLI', function () {
  this.timeout(30_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    await server.key('dana', 'write', { name: 'laptop' });
  });
  after(() => server.stop());

  it('adds, sets, lists and removes agents, and binds keys only to existing agents that a running server honours', async () => {
    const flags = { data: server.dataDir };
    const added = execFileSync(
      process.execPath,
      cli(
        'agent',
        'add',
        'dana',
        'readwise',
        '--mode',
        'write',
        '--write',
        'readwise',
        '--write',
        'books/',
        '--description',
        'Readwise mirror',
        '--data',
        server.dataDir,
      ),
      { encoding: 'utf8' },
    );
    expect(added).to.match(/created agent dana\/readwise\twrite\tread=\/\twrite=books\/,readwise\//);
    let err = await agentCommand(flags, ['add', 'dana', 'readwise'], { mode: 'read' }).catch((e: Error) => e);
    expect(err)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/already has an agent named readwise/);
    err = await agentCommand(flags, ['add', 'dana', 'x'], { mode: 'admin' }).catch((e: Error) => e);
    expect(err)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/unknown mode "admin"/);
    expect(await printed(() => agentCommand(flags, ['set', 'dana', 'readwise'], { read: ['readwise/'] }))).to.match(
      /read=readwise\/\twrite=books\/,readwise\/\tReadwise mirror/,
    );
    expect(await printed(() => agentCommand(flags, ['list', 'dana'], {}))).to.equal(
      'readwise\twrite\tread=readwise/\twrite=books/,readwise/\tReadwise mirror',
    );

    err = await keyCommand(flags, ['create', 'dana'], { name: 'k1', scope: 'write', agent: 'ghost' }).catch((e: Error) => e);
    expect(err)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/no agent named ghost/);
    expect((await server.services.accounts.keys('dana')).map((k) => k.name)).not.to.include('k1');
    const { key } = await server.services.accounts.createKey({ user: 'dana', name: 'k2', scope: 'write', agent: 'readwise' });
    expect(await printed(() => keyCommand(flags, ['list', 'dana'], {}))).to.match(/^k2\twrite\tno\t.*\treadwise$/m);
    const write = (path: string) => server.api('/vault/page', { method: 'POST', key, json: { path, content: 'x' } });
    expect((await write('readwise/a.md')).status).to.equal(201);
    expect((await write('notes/a.md')).status).to.equal(403);

    expect(await printed(() => agentCommand(flags, ['remove', 'dana', 'readwise'], {}))).to.match(/removed agent dana\/readwise/);
    expect((await write('readwise/b.md')).status).to.equal(403);
  });
});
