import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cli } from '../../helpers/built-script.js';
import type { TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { hashBlob } from '../../../vault-store/git/hash-blob.js';
import { folderFiles } from './sync-helpers.js';

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
const ATTACHED = Array.from({ length: 4 }, (_, i) => `img/a-${i}.png`);
/** An attachment's first bytes: a PNG signature's start, so the server files it as an image. */
const IMAGE_HEAD = '\u0000PNG\n';

/**
 * Two watching clients on two folders and a REST writer make random edits (appends of a
 * unique marker to pages and to attachments), creations, deletions and renames on the same
 * few paths for `ms`, then stop. Within `settleMs` both folders must equal the vault (conflict
 * copies are files of it too), and every marker appended anywhere must be in some file: at
 * its path or in a conflict copy (attachments are never merged: each conflict is a copy).
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
      if (roll < 0.15) {
        const path = ATTACHED[Math.floor(Math.random() * ATTACHED.length)];
        const marker = `marker-${actor}-${++n}`;
        markers.push(marker);
        if (actor === 2) await restAppendFile(server, owner, path, marker);
        else localAppendFile(dirs[actor], path, marker);
      } else if (roll < 0.7) {
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
    let differences = '';
    await until('both folders to equal the vault', settleMs, async () => {
      const vault = await serverHashes(server, owner);
      const unsettled = dirs.map((dir) => differing(folderHashes(dir), vault));
      differences = unsettled.map((paths, i) => `folder ${i}: ${paths.join(', ') || 'equal'}`).join('; ');
      return unsettled.every((paths) => paths.length === 0) || undefined;
    }).catch((err: Error) => {
      // Which paths never settled is what tells a slow machine from a loop between clients.
      throw new Error(`${err.message} (${differences})`);
    });
  } finally {
    for (const child of clients) child.kill('SIGTERM');
    await Promise.all(clients.map((c) => new Promise((resolve) => (c.exitCode === null ? c.on('exit', resolve) : resolve(null)))));
  }
  const text = [...(await serverFiles(server, owner)).values()].join('\n');
  const lost = markers.filter((m) => !text.includes(`${m}\n`) && !text.endsWith(m));
  expect(lost, 'markers missing from the vault').to.deep.equal([]);
}

/** Every file of the vault, pages and attachments: path → hash (one request, so polling it spends little of the plan). */
async function serverHashes(server: TestServer, key: string): Promise<Map<string, string>> {
  const res = await server.api('/vault/files?limit=1000', { key });
  const { files } = (await res.json()) as { files: { path: string; hash: string }[] };
  return new Map(files.map((file) => [file.path, file.hash]));
}

function folderHashes(dir: string): Map<string, string> {
  return new Map([...folderFiles(dir)].map(([path, text]) => [path, hashBlob(Buffer.from(text))]));
}

/** Every file of the vault, pages and attachments, through the file API: path → text. */
async function serverFiles(server: TestServer, key: string): Promise<Map<string, string>> {
  const res = await server.api('/vault/files?limit=1000', { key });
  const { files } = (await res.json()) as { files: { path: string }[] };
  const out = new Map<string, string>();
  for (const { path } of files) {
    const file = await server.api(`/vault/file/${encodeURI(path)}`, { key });
    if (file.status === 200) out.set(path, await file.text());
  }
  return out;
}

/** The REST writer appends to an attachment as a client would: read, then write over that version only. */
async function restAppendFile(server: TestServer, key: string, path: string, marker: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await server.api(`/vault/file/${path}`, { key });
    const exists = current.status === 200;
    const before = exists ? await current.text() : IMAGE_HEAD;
    const precondition: Record<string, string> = exists ? { 'if-match': current.headers.get('etag')! } : { 'if-none-match': '*' };
    const res = await server.api(`/vault/file/${path}`, { method: 'PUT', key, headers: precondition, body: `${before}${marker}\n` });
    if (res.status !== 409) {
      expect(res.status, await res.text()).to.be.below(300);
      return;
    }
  }
  throw new Error(`${path}: five conflicts in a row`);
}

function localAppendFile(dir: string, path: string, marker: string): void {
  mkdirSync(join(dir, 'img'), { recursive: true });
  const file = join(dir, path);
  appendFileSync(file, `${existsSync(file) ? '' : IMAGE_HEAD}${marker}\n`);
}

/** The paths where a folder and the vault differ: missing on either side or with other contents. */
function differing(folder: Map<string, string>, vault: Map<string, string>): string[] {
  const paths = new Set([...folder.keys(), ...vault.keys()]);
  return [...paths].filter((path) => folder.get(path) !== vault.get(path)).sort();
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
