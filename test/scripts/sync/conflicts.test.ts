import { expect } from 'chai';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/test-server.js';
import { deletePageOnServer, folderFiles, put, read, recorder, serverPages, syncOnce, syncSuite, writePage } from './sync-helpers.js';

const AT = new Date(2026, 10, 26, 15, 3, 12);
const now = () => AT;

describe('quire sync: when both sides changed a file', () => {
  let server: TestServer;
  let owner: string;
  let device: string;
  let dir: string;

  syncSuite((s) => ([server, owner, device, dir] = [s.server, s.owner, s.device, s.dirs[0]]), { keys: true });

  beforeEach(async () => {
    await writePage(server, owner, 'note.md', 'one\ntwo\nthree\nfour\nfive\n');
    await syncOnce(server, dir, device);
  });

  it('merges edits to different lines into one version on both sides', async () => {
    put(dir, 'note.md', 'ONE local\ntwo\nthree\nfour\nfive\n');
    await writePage(server, owner, 'note.md', 'one\ntwo\nthree\nfour\nFIVE server\n');
    const result = await syncOnce(server, dir, device, { now });
    expect(result.merged).to.equal(1);
    const merged = 'ONE local\ntwo\nthree\nfour\nFIVE server\n';
    expect(read(dir, 'note.md')).to.equal(merged);
    expect((await serverPages(server, owner)).get('note.md')).to.equal(merged);
    expect(result.conflicts).to.deep.equal([]);
  });

  it('keeps the server version at the path and the local one as a named conflict copy, sent to the server too', async () => {
    put(dir, 'note.md', 'one\nTWO local\nthree\nfour\nfive\n');
    await writePage(server, owner, 'note.md', 'one\nTWO server\nthree\nfour\nfive\n');
    const report = recorder();
    const result = await syncOnce(server, dir, device, { now, report });
    const copy = 'note (conflict laptop 2026-11-26 1503).md';
    expect(result.conflicts).to.deep.equal([['note.md', copy]]);
    expect(report.lines.some((l) => l.includes(copy))).to.equal(true);
    expect(read(dir, 'note.md')).to.equal('one\nTWO server\nthree\nfour\nfive\n');
    expect(read(dir, copy)).to.equal('one\nTWO local\nthree\nfour\nfive\n');
    expect((await serverPages(server, owner)).get(copy)).to.equal('one\nTWO local\nthree\nfour\nfive\n');

    // A second conflict in the same minute gets a counter, and a re-run adds nothing.
    put(dir, 'note.md', 'again local\n');
    await writePage(server, owner, 'note.md', 'again server\n');
    const second = await syncOnce(server, dir, device, { now });
    expect(second.conflicts).to.deep.equal([['note.md', 'note (conflict laptop 2026-11-26 1503 2).md']]);
    const before = folderFiles(dir);
    const idle = await syncOnce(server, dir, device, { now });
    expect(idle).to.include({ uploaded: 0, downloaded: 0 });
    expect(folderFiles(dir)).to.deep.equal(before);
  });

  it('makes a conflict copy when the two sides created the same path independently', async () => {
    put(dir, 'both.md', 'mine\n');
    await writePage(server, owner, 'both.md', 'theirs\n');
    const result = await syncOnce(server, dir, device, { now });
    expect(result.conflicts).to.have.length(1);
    expect(read(dir, 'both.md')).to.equal('theirs\n');
    expect(read(dir, result.conflicts[0][1])).to.equal('mine\n');
  });

  it('brings back a page deleted here but edited on the server', async () => {
    rmSync(join(dir, 'note.md'));
    await writePage(server, owner, 'note.md', 'edited there\n');
    await syncOnce(server, dir, device, { now });
    expect(read(dir, 'note.md')).to.equal('edited there\n');
    expect((await serverPages(server, owner)).get('note.md')).to.equal('edited there\n');
  });

  it('sends back a page deleted on the server but edited here', async () => {
    put(dir, 'note.md', 'edited here\n');
    await deletePageOnServer(server, owner, 'note.md');
    await syncOnce(server, dir, device, { now });
    expect((await serverPages(server, owner)).get('note.md')).to.equal('edited here\n');
    expect(existsSync(join(dir, 'note.md'))).to.equal(true);
  });

  it('deletes on both sides when both deleted', async () => {
    rmSync(join(dir, 'note.md'));
    await deletePageOnServer(server, owner, 'note.md');
    const result = await syncOnce(server, dir, device, { now });
    expect(result).to.include({ uploaded: 0, downloaded: 0, pending: 0 });
    expect((await serverPages(server, owner)).has('note.md')).to.equal(false);
  });
});
