import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cli } from '../../helpers/built-script.js';
import type { TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { folderFiles, serverPages } from './sync-helpers.js';

/** `quire sync DIR --watch` as a child process. */
function watcher(server: TestServer, dir: string, key: string): ChildProcess {
  const child = spawn(process.execPath, cli('sync', dir, '--server', server.url, '--key', key, '--watch'), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk) => {
    if (process.env.SYNC_DEBUG) process.stderr.write(`[${dir.slice(-6)}] ${chunk}`);
  });
  return child;
}

const EDITED = Array.from({ length: 8 }, (_, i) => `edit-${i}.md`);
const MOVED = Array.from({ length: 8 }, (_, i) => `tmp/t-${i}.md`);

/**
 * Two watching clients on two folders and a REST writer make random edits (appends of a
 * unique marker), creations, deletions and renames on the same few paths for `ms`, then
 * stop. Within `settleMs` both folders must equal the vault (conflict copies are pages of it
 * too), and every marker appended anywhere must be in some page: at its path or in a
 * conflict copy.
 */
export async function convergence(server: TestServer, dirs: [string, string], ms: number, settleMs: number): Promise<void> {
  // pro: two clients and a writer make more than the personal plan's 120 writes a minute.
  const owner = await server.key('ana', 'write', { plan: 'pro' });
  const clients = [
    watcher(server, dirs[0], await server.key('ana', 'write', { device: true, name: 'one' })),
    watcher(server, dirs[1], await server.key('ana', 'write', { device: true, name: 'two' })),
  ];
  const markers: string[] = [];
  let n = 0;
  try {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const actor = Math.floor(Math.random() * 3);
      const roll = Math.random();
      if (roll < 0.7) {
        const path = EDITED[Math.floor(Math.random() * EDITED.length)];
        const marker = `marker-${actor}-${++n}`;
        markers.push(marker);
        if (actor === 2) {
          const res = await server.api('/vault/append', { method: 'POST', key: owner, json: { path, text: marker } });
          expect(res.status, await res.text()).to.be.below(300);
        } else appendFileSync(join(dirs[actor], path), `${marker}\n`);
      } else {
        const from = MOVED[Math.floor(Math.random() * MOVED.length)];
        const to = MOVED[Math.floor(Math.random() * MOVED.length)];
        if (actor === 2) await restMove(server, owner, roll, from, to);
        else localMove(dirs[actor], roll, from, to);
      }
      await sleep(50 + Math.random() * 200);
    }
    await until('both folders to equal the vault', settleMs, async () => {
      const vault = await serverPages(server, owner);
      return dirs.every((dir) => sameFiles(pagesOf(folderFiles(dir)), vault)) || undefined;
    });
  } finally {
    for (const child of clients) child.kill('SIGTERM');
    await Promise.all(clients.map((c) => new Promise((resolve) => (c.exitCode === null ? c.on('exit', resolve) : resolve(null)))));
  }
  const text = [...(await serverPages(server, owner)).values()].join('\n');
  const lost = markers.filter((m) => !text.includes(`${m}\n`) && !text.endsWith(m));
  expect(lost, 'markers missing from the vault').to.deep.equal([]);
}

function pagesOf(files: Map<string, string>): Map<string, string> {
  return new Map([...files].filter(([path]) => path.endsWith('.md')));
}

function sameFiles(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, text]) => b.get(path) === text);
}

async function restMove(server: TestServer, key: string, roll: number, from: string, to: string): Promise<void> {
  if (roll < 0.8) await server.api('/vault/page', { method: 'POST', key, json: { path: from, content: `created ${from}\n` } });
  else if (roll < 0.9) await server.api(`/vault/page/${from}`, { method: 'DELETE', key });
  else if (from !== to) await server.api('/vault/move', { method: 'POST', key, json: { from, to } });
}

function localMove(dir: string, roll: number, from: string, to: string): void {
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  if (roll < 0.8) writeFileSync(join(dir, from), `created ${from}\n`);
  else if (roll < 0.9) rmSync(join(dir, from), { force: true });
  else if (from !== to && existsSync(join(dir, from)) && !existsSync(join(dir, to))) renameSync(join(dir, from), join(dir, to));
}
