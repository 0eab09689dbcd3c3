import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { gitIn } from '../../helpers/temp-vault.js';
import { AUTHOR } from './git-client.js';
import { pushSetupPerTest, receivePackRequest } from './push-setup.js';

describe('git push of malformed trees and packs', function () {
  this.timeout(60_000);
  const p = pushSetupPerTest();

  it('refuses a commit whose tree holds .git, .., an absolute or a slashed name: ref and folder unchanged', async () => {
    const before = p.head();
    const files = listFiles(p.vaultDir);
    const blob = gitIn(p.client, 'hash-object', '-w', 'notes/a.md').trim();
    const sub = execTree(p.client, `100644 blob ${blob}\tconfig\n`);
    const raw = (name: string) => Buffer.concat([Buffer.from(`100644 ${name}\0`), Buffer.from(blob, 'hex')]);
    const trees = [
      execTree(p.client, `040000 tree ${sub}\t.git\n`),
      execTree(p.client, `040000 tree ${sub}\t..\n`),
      execTree(p.client, `040000 tree ${sub}\t.GIT\n`),
      literalTree(p.client, raw('/etc-passwd')),
      literalTree(p.client, raw('notes/../../escape.md')),
    ];
    for (const tree of trees) {
      const commit = gitIn(p.client, ...AUTHOR, 'commit-tree', tree, '-p', 'HEAD', '-m', 'bad').trim();
      const result = await p.push(`${commit}:refs/heads/main`);
      expect(result.status, tree).to.not.equal(0);
      expect(result.stderr, tree).to.match(/hasDotgit|hasDotdot|fullPathname|unpacker error/);
    }
    expect(p.head()).to.equal(before);
    expect(listFiles(p.vaultDir)).to.deep.equal(files);
  });

  it('refuses malformed pack data and bad gzip, ref unchanged', async () => {
    const before = p.head();
    const auth = { authorization: `Bearer ${p.key}`, 'content-type': 'application/x-git-receive-pack-request' };
    const res = await fetch(`${p.server.url}/vault.git/git-receive-pack`, {
      method: 'POST',
      headers: auth,
      body: Buffer.concat([receivePackRequest(before), randomBytes(200)]),
    });
    expect(res.status).to.equal(200);
    const report = await res.text();
    expect(report).to.match(/unpack (?!ok)/);
    expect(report).to.match(/ng refs\/heads\/main/);
    const badGzip = await fetch(`${p.server.url}/vault.git/git-receive-pack`, {
      method: 'POST',
      headers: { ...auth, 'content-encoding': 'gzip' },
      body: Buffer.from('not gzip at all'),
    });
    expect(badGzip.status).to.equal(400);
    const emptyGzip = await fetch(`${p.server.url}/vault.git/git-receive-pack`, {
      method: 'POST',
      headers: { ...auth, 'content-encoding': 'gzip' },
      body: gzipSync('0000'),
    });
    expect(emptyGzip.status).to.equal(200);
    expect(p.head()).to.equal(before);
  });
});

/** Every file and folder under `dir` but .git, with its size. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path !== '.git' && !path.startsWith(`.git${sep}`))
    .map((path) => `${path} ${statSync(join(dir, path)).size}`)
    .sort();
}

/** A tree object from `git mktree` lines. */
function execTree(cwd: string, lines: string): string {
  return execFileSyncInput(cwd, ['mktree'], lines);
}

/** A tree object written as is (`hash-object --literally`), for names `git mktree` refuses. */
function literalTree(cwd: string, body: Buffer): string {
  return execFileSyncInput(cwd, ['hash-object', '--literally', '-t', 'tree', '-w', '--stdin'], body);
}

function execFileSyncInput(cwd: string, args: string[], input: string | Buffer): string {
  return execFileSync('git', args, { cwd, input, encoding: 'utf8' }).trim();
}
