import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { cli } from '../../helpers/built-script.js';
import type { TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { folderFiles, put, serverPages } from './sync-helpers.js';

/** Commits `count` pages straight into a user's vault folder with git, as a clone's push would land them. */
export async function seedVault(server: TestServer, user: string, key: string, count: number): Promise<void> {
  const dir = vaultDir(server.dataDir, user);
  for (let i = 0; i < count; i++) {
    const path = join(dir, `folder-${i % 20}`, `page-${i}.md`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `# Page ${i}\n\n${'text of the page '.repeat(1 + (i % 40))}\n`);
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=seed', '-c', 'user.email=seed@x', ...args], { cwd: dir, stdio: 'ignore' });
  git('add', '-A');
  git('commit', '-q', '-m', 'seed');
  await until('the server to follow the seed commit', 20_000, async () => {
    const res = await server.api('/vault/stats', { key });
    return ((await res.json()) as { pages: number }).pages >= count;
  });
}

/** Runs `quire sync DIR --once` as a child and SIGKILLs it after `killAfterMs` (or lets it finish). */
export async function runCli(server: TestServer, dir: string, key: string, killAfterMs?: number): Promise<number | null> {
  const child = spawn(process.execPath, cli('sync', dir, '--server', server.url, '--key', key, '--once'), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  if (killAfterMs !== undefined) {
    const timer = sleep(killAfterMs).then(() => child.kill('SIGKILL'));
    const code = await exited;
    void timer;
    return code;
  }
  const code = await exited;
  if (code !== 0) throw new Error(`quire sync exited ${code}: ${stderr}`);
  return code;
}

/**
 * A first sync of `pages` pages into a folder holding one conflicting page and a few pages of
 * its own, killed `kills` times at random moments, then run to the end: the folder and the
 * vault hold the same pages, exactly one conflict copy exists, and every local page got up.
 */
export async function killedFirstSync(server: TestServer, dir: string, pages: number, kills: number): Promise<void> {
  const owner = await server.key('ana', 'write');
  const device = await server.key('ana', 'write', { device: true, name: 'laptop' });
  await seedVault(server, 'ana', owner, pages);
  put(dir, 'folder-0/page-0.md', 'my own version of page 0\n');
  for (let i = 0; i < 10; i++) put(dir, `mine/local-${i}.md`, `local ${i}\n`);
  // A run that is not killed takes a few seconds here: kill somewhere within it.
  for (let k = 0; k < kills; k++) await runCli(server, dir, device, 300 + Math.floor(Math.random() * 2500));
  await runCli(server, dir, device);

  const local = folderFiles(dir);
  const remote = await serverPages(server, owner);
  const copies = [...local.keys()].filter((p) => p.includes('(conflict '));
  expect(copies, 'exactly one conflict copy').to.have.length(1);
  expect(local.get(copies[0])).to.equal('my own version of page 0\n');
  expect(
    [...local.keys()].filter((p) => p.includes('.quire-tmp-')),
    'no temp files left',
  ).to.deep.equal([]);
  for (let i = 0; i < 10; i++) expect(remote.get(`mine/local-${i}.md`)).to.equal(`local ${i}\n`);
  const localPages = new Map([...local].filter(([path]) => path.endsWith('.md')));
  expect(localPages.size).to.equal(remote.size);
  for (const [path, content] of remote) expect(localPages.get(path), path).to.equal(content);
}
