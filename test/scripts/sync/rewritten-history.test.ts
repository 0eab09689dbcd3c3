import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import type { TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { folderFiles, put, read, recorder, serverPages, syncOnce, syncSuite, writePage } from './sync-helpers.js';

describe('quire sync: after the server history was rewritten (410)', () => {
  let server: TestServer;
  let dir: string;
  syncSuite((s) => ([server, dir] = [s.server, s.dirs[0]]));

  it('compares every file again, keeps local edits as conflict copies instead of overwriting them, and acknowledges the new history', async () => {
    const owner = await server.key('ana', 'write');
    const device = await server.key('ana', 'write', { device: true, name: 'laptop' });
    await writePage(server, owner, 'stable.md', 'stable\n');
    await writePage(server, owner, 'note.md', 'first\n');
    await writePage(server, owner, 'note.md', 'second\n');
    await syncOnce(server, dir, device);

    // The folder's owner resets the branch and commits something else: the cursor is gone.
    const vault = vaultDir(server.dataDir, 'ana');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=x', '-c', 'user.email=x@x', ...args], { cwd: vault, encoding: 'utf8' });
    git('reset', '-q', '--hard', 'HEAD~1');
    put(vault, 'note.md', 'rewritten\n');
    git('commit', '-q', '-am', 'rewrite');
    const rewritten = git('rev-parse', 'HEAD').trim();
    await until(
      'the server to follow the rewrite',
      10_000,
      async () => (await serverPages(server, owner)).get('note.md') === 'rewritten\n',
    );

    put(dir, 'note.md', 'edited here meanwhile\n');
    const report = recorder();
    const result = await syncOnce(server, dir, device, { report });
    expect(report.lines.some((l) => /history was rewritten/.test(l))).to.equal(true);
    expect(result.conflicts).to.have.length(1);
    expect(read(dir, 'note.md')).to.equal('rewritten\n');
    expect(read(dir, result.conflicts[0][1])).to.equal('edited here meanwhile\n');
    const pages = new Map([...folderFiles(dir)].filter(([p]) => p.endsWith('.md')));
    expect(pages).to.deep.equal(await serverPages(server, owner));

    // The server takes the acknowledgement of the new history: the old cursor is gone, not newer.
    expect(report.lines.filter((l) => /older acknowledgement/.test(l))).to.deep.equal([]);
    const laptop = (await server.services.accounts.keys('ana')).find((k) => k.name === 'laptop')!;
    expect((await server.services.usage.get(laptop.id)).cursor).to.equal(rewritten);
  });
});
