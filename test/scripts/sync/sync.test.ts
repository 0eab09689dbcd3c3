import { expect } from 'chai';
import { existsSync, mkdirSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { SyncState } from '../../../scripts/sync/sync-state.js';
import type { TestServer } from '../../helpers/test-server.js';
import { deletePageOnServer, folderFiles, put, read, serverPages, syncOnce, syncSuite, writePage } from './sync-helpers.js';

describe('quire sync: two-way sync of pages', () => {
  let server: TestServer;
  let owner: string;
  let device: string;
  let dir: string;

  syncSuite((s) => ([server, owner, device, dir] = [s.server, s.owner, s.device, s.dirs[0]]), { keys: true });

  it('first sync brings every page of the vault into an empty folder', async () => {
    await writePage(server, owner, 'a.md', '# A\n');
    await writePage(server, owner, 'notes/deep/b.md', '# B\n\nbody\n');
    const result = await syncOnce(server, dir, device);
    const pages = await serverPages(server, owner);
    expect(result.downloaded).to.equal(pages.size);
    for (const [path, content] of pages) expect(read(dir, path)).to.equal(content);
  });

  it('first sync into a folder that already has files sends the new ones and keeps both sides', async () => {
    await writePage(server, owner, 'shared.md', 'same\n');
    put(dir, 'shared.md', 'same\n');
    put(dir, 'mine.md', 'only here\n');
    const result = await syncOnce(server, dir, device);
    expect(result.uploaded).to.equal(1);
    expect((await serverPages(server, owner)).get('mine.md')).to.equal('only here\n');
  });

  it('later runs carry edits, additions and deletions both ways, then do nothing', async () => {
    await writePage(server, owner, 'keep.md', 'v1\n');
    await writePage(server, owner, 'gone-there.md', 'x\n');
    put(dir, 'gone-here.md', 'y\n');
    await syncOnce(server, dir, device);

    put(dir, 'keep.md', 'v2 local\n');
    put(dir, 'new-here.md', 'fresh\n');
    rmSync(join(dir, 'gone-here.md'));
    await writePage(server, owner, 'new-there.md', 'remote fresh\n');
    await deletePageOnServer(server, owner, 'gone-there.md');
    const result = await syncOnce(server, dir, device);
    expect(result).to.include({ uploaded: 2, downloaded: 1, deleted: 2 });

    const pages = await serverPages(server, owner);
    expect(pages.get('keep.md')).to.equal('v2 local\n');
    expect(pages.get('new-here.md')).to.equal('fresh\n');
    expect(pages.has('gone-here.md')).to.equal(false);
    expect(read(dir, 'new-there.md')).to.equal('remote fresh\n');
    expect(existsSync(join(dir, 'gone-there.md'))).to.equal(false);

    const idle = await syncOnce(server, dir, device);
    expect(idle).to.include({ uploaded: 0, downloaded: 0, deleted: 0, pending: 0 });
    const local = folderFiles(dir);
    expect(new Map([...local].filter(([p]) => p.endsWith('.md')))).to.deep.equal(await serverPages(server, owner));
  });

  it('after an idle run of a folder in agreement, still carries a local deletion, a local edit and a server edit', async () => {
    // Files older than the racy window, so that the stat cache holds and a re-run is idle.
    const putOld = (path: string, text: string, hoursAgo: number) => {
      put(dir, path, text);
      const then = new Date(Date.now() - hoursAgo * 3_600_000);
      utimesSync(join(dir, path), then, then);
    };
    for (const name of ['a', 'b', 'c']) putOld(`${name}.md`, `${name} v1\n`, 2);
    await syncOnce(server, dir, device);
    expect(SyncState.open(dir).agreed, 'saved in agreement').to.equal(true);
    expect(SyncState.open(dir).savedScan, "with the folder's digest").to.be.a('string');
    expect(await syncOnce(server, dir, device)).to.include({ uploaded: 0, downloaded: 0, deleted: 0 });

    rmSync(join(dir, 'a.md'));
    expect(await syncOnce(server, dir, device)).to.include({ deleted: 1 });
    expect((await serverPages(server, owner)).has('a.md')).to.equal(false);

    putOld('b.md', 'b v2, longer\n', 1);
    expect(await syncOnce(server, dir, device)).to.include({ uploaded: 1 });
    expect((await serverPages(server, owner)).get('b.md')).to.equal('b v2, longer\n');

    await writePage(server, owner, 'c.md', 'c v2 from the server\n');
    expect(await syncOnce(server, dir, device)).to.include({ downloaded: 1 });
    expect(read(dir, 'c.md')).to.equal('c v2 from the server\n');
  });

  it('acknowledges the cursor it synced to on the device key', async () => {
    await writePage(server, owner, 'a.md', 'a\n');
    await syncOnce(server, dir, device);
    const changes = (await (await server.api('/vault/changes?limit=1', { key: owner })).json()) as { head: string };
    const keys = await server.services.accounts.keys('ana');
    const laptop = keys.find((k) => k.name === 'laptop')!;
    expect((await server.services.usage.get(laptop.id)).cursor).to.equal(changes.head);
  });

  it('leaves alone what the folder .gitignore and .quireignore exclude and hidden folders, and sends attachments', async () => {
    put(dir, '.gitignore', 'drafts/\n');
    put(dir, '.quireignore', 'private-*.md\n');
    put(dir, 'drafts/x.md', 'draft\n');
    put(dir, 'private-diary.md', 'secret\n');
    put(dir, 'image.png', 'not a page');
    put(dir, '.obsidian/app.json', '{}');
    put(dir, 'public.md', 'hello\n');
    await writePage(server, owner, 'private-server.md', 'kept on the server\n');
    await syncOnce(server, dir, device);
    const pages = await serverPages(server, owner);
    expect([...pages.keys()].sort()).to.deep.equal(['private-server.md', 'public.md']);
    const listing = (await (await server.api('/vault/files', { key: owner })).json()) as { files: { path: string }[] };
    expect(listing.files.map((f) => f.path).sort()).to.deep.equal(['image.png', 'private-server.md', 'public.md']);
    expect(existsSync(join(dir, 'private-server.md'))).to.equal(false);
  });

  it('sends no symbolic link (to a file or a folder) and removes the temp file of a write a kill cut short', async () => {
    put(dir, 'real.md', 'real\n');
    put(dir, 'elsewhere/outside.md', 'outside\n');
    symlinkSync(join(dir, 'real.md'), join(dir, 'link.md'));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'linked-folder'));
    mkdirSync(join(dir, 'notes'), { recursive: true });
    put(dir, 'notes/.page.md.quire-tmp-0a1b2c', 'half written');
    await syncOnce(server, dir, device);
    const pages = await serverPages(server, owner);
    expect([...pages.keys()].sort()).to.deep.equal(['elsewhere/outside.md', 'real.md']);
    expect(existsSync(join(dir, 'notes/.page.md.quire-tmp-0a1b2c')), 'temp file removed').to.equal(false);
    expect(existsSync(join(dir, 'link.md')), 'the link itself left alone').to.equal(true);
  });
});
