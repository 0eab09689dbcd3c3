import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommitEvent } from '../../../vault-store/vault.js';
import { commitExternalEdits } from '../../../vault-store/watcher/external-edits.js';
import { VaultWatcher } from '../../../vault-store/watcher/vault-watcher.js';
import { DEFAULT_GITIGNORE, IgnoreRules } from '../../../vault-store/worktree/ignore-rules.js';
import { gitIn, tempVault } from '../../helpers/temp-vault.js';
import { recordCommits, waitFor } from '../watcher/helpers.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

const RULES: Record<string, string> = {
  '.gitignore': [
    '# comment',
    '*.log',
    '!keep.log',
    'build/',
    '!build/keep.js',
    '/root-only.txt',
    'docs/**/draft-*.md',
    '.DS_Store',
    'a/b/',
    'tmp*',
    '!tmpkeep',
    'cache/',
    '**/gen/*.md',
    '\\#hash.md',
    'trailing.md   ',
  ].join('\n'),
  'a/.gitignore': '!b/\n*.txt\n!important.txt\n',
  'sub/.gitignore': '/local.md\n*.bak\n!root-only.txt\n',
  'sub/deep/.gitignore': '!*.bak\n',
  '.git/info/exclude': 'secret.md\n',
};

/** Files made in the folder, each asked of git and of IgnoreRules. */
const FILES = [
  'x.log',
  'X.LOG',
  'keep.log',
  'logs/keep.log',
  'build/out.js',
  'build/keep.js',
  'sub/build/out.js',
  'root-only.txt',
  'sub/root-only.txt',
  'docs/x/draft-1.md',
  'docs/draft-2.md',
  'docs/final.md',
  '.DS_Store',
  'notes/.DS_Store',
  'a/b/c.md',
  'a/b/c.txt',
  'a/b/important.txt',
  'a/c.txt',
  'tmpfile.md',
  'tmpkeep',
  'sub/local.md',
  'local.md',
  'sub/x.bak',
  'sub/deep/y.bak',
  'secret.md',
  'notes/secret.md',
  'cache',
  'notes/cache/z.md',
  'x/gen/a.md',
  'x/gen/deeper/a.md',
  '#hash.md',
  'trailing.md',
  'plain.md',
];
const FOLDERS = ['build', 'a/b', 'sub/build', 'notes/cache', 'docs/x', 'x/gen', 'logs'];

describe('IgnoreRules', () => {
  let t: TempVault;
  beforeEach(async () => {
    t = await tempVault({ 'a.md': '# A\n' });
  });
  afterEach(() => t.cleanup());

  const put = (path: string, content = 'x') => {
    mkdirSync(join(t.dir, path, '..'), { recursive: true });
    writeFileSync(join(t.dir, path), content);
  };
  /** The paths `git check-ignore` says are ignored (it exits 1 when none is). */
  const gitIgnored = (paths: string[]): string[] => {
    try {
      const out = execFileSync('git', ['-c', 'core.ignorecase=false', 'check-ignore', '--no-index', '-z', '--stdin'], {
        cwd: t.dir,
        input: paths.join('\0'),
        encoding: 'utf8',
      });
      return out.split('\0').filter(Boolean);
    } catch (err) {
      if ((err as { status?: number }).status === 1) return [];
      throw err;
    }
  };

  it('agrees with git check-ignore on nested .gitignore files, negations, anchors and info/exclude', async () => {
    for (const [path, text] of Object.entries(RULES)) put(path, text);
    for (const path of FILES) put(path);
    const rules = await IgnoreRules.load(t.dir);

    const ours = FILES.filter((path) => rules.ignores(path));
    const oursFolders = FOLDERS.filter((path) => rules.ignores(path, true)).map((path) => `${path}/`);

    expect(ours).to.deep.equal(gitIgnored(FILES));
    expect(oursFolders).to.deep.equal(gitIgnored(FOLDERS.map((path) => `${path}/`)));
    // The table is worth something only if it has both answers, and the hard cases.
    expect(ours).to.include.members(['a/b/c.txt', 'build/keep.js', 'sub/x.bak']);
    expect(ours).to.not.include.members(['a/b/c.md', 'keep.log', 'sub/deep/y.bak', 'X.LOG']);
  });

  it('gives the same answers read folder by folder by a walk that lists each once (forWalk, as the sync scan does)', () => {
    for (const [path, text] of Object.entries(RULES)) put(path, text);
    for (const path of FILES) put(path);
    const rules = IgnoreRules.forWalk(t.dir);
    const walk = (folder: string) => {
      const entries = readdirSync(join(t.dir, folder), { withFileTypes: true });
      if (entries.some((entry) => entry.name === '.gitignore')) rules.addFolder(folder);
      for (const entry of entries) {
        const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory() && entry.name !== '.git' && !rules.ignores(path, true)) walk(path);
      }
    };
    walk('');

    expect(FILES.filter((path) => rules.ignores(path))).to.deep.equal(gitIgnored(FILES));
    expect(FOLDERS.filter((path) => rules.ignores(path, true)).map((path) => `${path}/`)).to.deep.equal(
      gitIgnored(FOLDERS.map((path) => `${path}/`)),
    );
  });

  it('reads the rules again on refresh, and not before', async () => {
    put('.gitignore', '*.tmp\n');
    const rules = await IgnoreRules.load(t.dir);
    expect(rules.ignores('x.tmp')).to.equal(true);

    put('.gitignore', '*.bak\n');
    expect(rules.ignores('x.tmp'), 'before refresh').to.equal(true);
    await rules.refresh();
    expect([rules.ignores('x.tmp'), rules.ignores('x.bak')]).to.deep.equal([false, true]);

    put('.git/info/exclude', '*.tmp\n');
    expect(await rules.refreshIfExcludeChanged()).to.equal(true);
    expect(rules.ignores('x.tmp')).to.equal(true);
    expect(await rules.refreshIfExcludeChanged()).to.equal(false);
  });

  describe('in commits from the folder', () => {
    const committed = (event: CommitEvent | undefined) => event?.changes.map((c) => c.path) ?? [];

    it('with the default .gitignore a new vault commits: Obsidian settings, not its workspace, trash or .DS_Store', async () => {
      expect(gitIn(t.dir, 'show', 'HEAD:.gitignore')).to.equal(DEFAULT_GITIGNORE);
      put('.obsidian/app.json', '{"vimMode":true}');
      put('.obsidian/plugins/x/data.json', '{}');
      put('.obsidian/workspace.json', '{}');
      put('.obsidian/workspace-mobile.json', '{}');
      put('.trash/old.md', '# Old\n');
      put('.DS_Store');
      put('notes/.DS_Store');
      put('notes/Thumbs.db');
      put('notes/n.md', '# N\n');

      const event = await commitExternalEdits(t.vault);

      expect(committed(event)).to.deep.equal(['.obsidian/app.json', '.obsidian/plugins/x/data.json', 'notes/n.md']);
      gitIn(t.dir, 'fsck', '--strict');
    });

    it('applies a nested .gitignore relative to its folder, with ! re-including, and info/exclude', async () => {
      put('.gitignore', '*.pdf\n!keep.pdf\n');
      put('projects/.gitignore', '/out/\ndraft.md\n');
      put('.git/info/exclude', 'private/\n');
      put('x.pdf');
      put('keep.pdf');
      put('projects/out/o.md', '# O\n');
      put('projects/draft.md', '# D\n');
      put('projects/sub/draft.md', '# D\n');
      put('projects/sub/out/o.md', '# O\n');
      put('out/o.md', '# O\n');
      put('private/p.md', '# P\n');

      const event = await commitExternalEdits(t.vault);

      expect(committed(event)).to.deep.equal(['.gitignore', 'keep.pdf', 'out/o.md', 'projects/.gitignore', 'projects/sub/out/o.md']);
    });

    it('keeps following a tracked file that a rule ignores, as git does, and a tracked file in an ignored folder', async () => {
      put('data.json', '{"v":1}');
      put('build/kept.txt', 'v1');
      await commitExternalEdits(t.vault);
      put('.gitignore', '*.json\nbuild/\n');
      put('data.json', '{"v":2}');
      put('build/kept.txt', 'v2');
      put('build/new.txt', 'new');
      put('other.json', '{}');

      const event = await commitExternalEdits(t.vault);
      expect(committed(event)).to.deep.equal(['.gitignore', 'build/kept.txt', 'data.json']);
      expect(await commitExternalEdits(t.vault, ['build/kept.txt', 'build', 'other.json'])).to.equal(undefined);

      rmSync(join(t.dir, 'build'), { recursive: true });
      const deleted = await commitExternalEdits(t.vault, ['build']);
      expect(deleted!.changes.map((c) => `${c.op} ${c.path}`)).to.deep.equal(['delete build/kept.txt']);
    });

    it('never commits a nested repository’s .git, nor our temp files', async () => {
      put('nested/.git/config', '[core]\n');
      put('nested/.gitignore', 'x\n');
      put('.a.md.quire-tmp-00aa11bb22cc', 'half');

      const event = await commitExternalEdits(t.vault);

      expect(committed(event)).to.deep.equal(['nested/.gitignore']);
    });
  });

  describe('in the watcher', () => {
    let watcher: VaultWatcher | undefined;
    let events: CommitEvent[];
    beforeEach(() => void (events = recordCommits(t.vault)));
    afterEach(async () => {
      await watcher?.close();
      watcher = undefined;
    });
    const OPTIONS = { quietMs: 100, stabilityMs: 50 };
    const nextCommit = (count: number) => waitFor(`${count} commit(s)`, () => (events.length >= count ? events[count - 1] : undefined));
    const settle = () => new Promise((resolve) => setTimeout(resolve, OPTIONS.quietMs * 4));

    it('reads the rules again when a .gitignore changes, then commits what stopped being ignored', async () => {
      watcher = await VaultWatcher.start(t.vault, OPTIONS);
      put('.gitignore', '*.tmp\nscratch/\n');
      put('x.tmp');
      put('scratch/s.md', '# S\n');
      put('y.md', '# Y\n');

      expect((await nextCommit(1)).changes.map((c) => c.path)).to.deep.equal(['.gitignore', 'y.md']);
      expect(watcher.state().folders, 'scratch/ is not watched').to.equal(1);

      put('.gitignore', 'scratch/\n');
      expect((await nextCommit(2)).changes.map((c) => c.path)).to.deep.equal(['.gitignore', 'x.tmp']);

      rmSync(join(t.dir, '.gitignore'));
      expect((await nextCommit(3)).changes.map((c) => `${c.op} ${c.path}`)).to.deep.equal(['delete .gitignore', 'add scratch/s.md']);
      await waitFor('scratch/ watched', () => (watcher!.state().folders === 2 ? true : undefined));
      put('scratch/t.md', '# T\n');
      expect((await nextCommit(4)).changes.map((c) => c.path)).to.deep.equal(['scratch/t.md']);
    });

    it('notices a changed .git/info/exclude at its next commit', async () => {
      watcher = await VaultWatcher.start(t.vault, OPTIONS);
      put('.git/info/exclude', '*.secret\n');
      put('k.secret');
      put('z.md', '# Z\n');

      expect((await nextCommit(1)).changes.map((c) => c.path)).to.deep.equal(['z.md']);
      await settle();
      expect(events).to.have.length(1);
    });
  });
});
