import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';
import { quireIn, serveChild, type ServerChild } from '../git-http/server-child.js';

/** `curl -N` on the event stream, as a sync client outside the test process would listen. */
class Curl {
  readonly child: ChildProcess;
  out = '';
  readonly exited: Promise<number | null>;

  constructor(url: string, headers: Record<string, string>) {
    const args = ['-sSN', ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]), `${url}/vault/events`];
    this.child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => void (this.out += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => void (this.out += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
  }

  /** The ids of the events received, in order. */
  ids(event: string): string[] {
    return [...this.out.matchAll(/^id: (\S+)\nevent: (\S+)\n/gm)].filter((m) => m[2] === event).map((m) => m[1]);
  }
}

describe('GET /vault/events across a server restart (real processes: quire serve, curl -N)', function () {
  this.timeout(60_000);
  const dir = tempDir('quire-live-restart-');
  const servers: ServerChild[] = [];
  const curls: Curl[] = [];
  after(async () => {
    for (const c of curls) if (c.child.exitCode === null) c.child.kill('SIGTERM');
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all([...servers.map((s) => s.exited), ...curls.map((c) => c.exited)]);
    dir.cleanup();
  });

  it('ends the stream cleanly on SIGTERM, and a reconnect with Last-Event-ID gets what changed while it was down', async () => {
    const data = join(dir.path, 'data');
    quireIn(data, 'user', 'add', 'alice', '--plan', 'pro');
    const key = quireIn(data, 'key', 'create', 'alice', '--name', 'laptop', '--scope', 'write', '--device').trim();
    const auth = { authorization: `Bearer ${key}` };
    const write = async (url: string, path: string): Promise<string> => {
      const res = await fetch(`${url}/vault/page`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ path, content: `${path}\n` }),
      });
      expect(res.status, await res.clone().text()).to.equal(201);
      return (await res.json()).commit;
    };

    const first = await serveChild(data);
    servers.push(first);
    await write(first.url, 'seed.md');
    const listening = new Curl(first.url, auth);
    curls.push(listening);
    await until('the ready event', 10_000, () => listening.ids('ready').length > 0);
    const seen = await write(first.url, 'before.md');
    await until('the change event', 10_000, () => listening.ids('change').includes(seen));

    first.child.kill('SIGTERM');
    // curl exits 0 only when the chunked response ended with its terminator (18: cut short).
    expect(await listening.exited, listening.out).to.equal(0);
    expect(await first.exited).to.equal(0);

    // While the server is down: a commit made with git in the vault folder.
    const vault = join(data, 'vaults', 'alice');
    writeFileSync(join(vault, 'offline.md'), 'committed while the server was down\n');
    gitIn(vault, 'add', 'offline.md');
    gitIn(vault, '-c', 'user.name=Olive Offline', '-c', 'user.email=o@example.com', 'commit', '-q', '-m', 'offline');
    const offline = gitIn(vault, 'rev-parse', 'HEAD').trim();

    const second = await serveChild(data);
    servers.push(second);
    const after = await write(second.url, 'after.md');
    const resumed = new Curl(second.url, { ...auth, 'Last-Event-ID': listening.ids('change').at(-1)! });
    curls.push(resumed);
    await until('the missed changes', 10_000, () => resumed.ids('change').length >= 2);
    expect(resumed.ids('ready')).to.deep.equal([seen]);
    expect(resumed.ids('change')).to.deep.equal([offline, after]);

    second.child.kill('SIGTERM');
    expect(await resumed.exited, resumed.out).to.equal(0);
    expect(await second.exited).to.equal(0);
  });
});
