import { expect } from 'chai';
import { isQuireError, type QuireError } from '../../../vault-store/errors.js';
import { revert, type RevertRequest } from '../../../vault-store/revert/revert.js';
import { gitIn, tempVault } from '../../helpers/temp-vault.js';

const scout = {
  name: 'scout (agent, key:scout-key)',
  email: 'dana@quire.invalid',
  trailers: { 'Quire-Actor': 'key:scout-key', 'Quire-Credential': 'k_scout', 'Quire-Agent': 'scout' },
};
const owner = {
  name: 'laptop (key)',
  email: 'dana@quire.invalid',
  trailers: { 'Quire-Actor': 'key:laptop', 'Quire-Credential': 'k_laptop' },
};
const text = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const hour = 3600_000;

describe('revert (undo a session or a commit)', () => {
  let v: Awaited<ReturnType<typeof tempVault>>;
  let since: Date;

  const run = (target: RevertRequest['target'], options: Partial<RevertRequest> = {}) =>
    revert(v.vault, owner, {
      target,
      dryRun: false,
      inHistory: (oid) => v.vault.repo.isAncestor(oid, v.vault.head),
      ...options,
    });
  const agentSession = () => ({ by: { agent: 'scout' }, since });
  const content = async (path: string) => (await v.pages.read(path)).content;
  const commits = () => Number(gitIn(v.dir, 'rev-list', '--count', 'main').trim());

  beforeEach(async () => {
    v = await tempVault({ 'notes/a.md': text(10), 'notes/b.md': 'bee\n', 'notes/keep.md': 'keep\n' });
    since = new Date(Date.now() - hour);
  });
  afterEach(() => v.cleanup());

  it('undoes every change of the session in one commit, keeping a later edit by someone else', async () => {
    await v.pages.write(scout, { path: 'notes/a.md', content: text(10).replace('line 2\n', 'agent two\n') });
    await v.pages.write(scout, { path: 'notes/c.md', content: 'made by the agent\n' });
    await v.pages.delete(scout, { path: 'notes/b.md' });
    await v.pages.write(owner, { path: 'notes/a.md', content: text(10).replace('line 2\n', 'agent two\n').replace('line 9\n', 'mine\n') });
    const before = commits();

    const plan = await run(agentSession(), { dryRun: true });
    expect(commits()).to.equal(before);
    expect(plan).to.deep.include({ dry_run: true, commit: null, deleted: [{ path: 'notes/c.md' }], skipped: [] });
    expect(plan.commits).to.have.length(3);
    expect(plan.reverted.map((r) => r.path)).to.deep.equal(['notes/a.md']);
    expect(plan.recreated.map((r) => r.path)).to.deep.equal(['notes/b.md']);

    const done = await run(agentSession());
    expect(done).to.deep.include({ dry_run: false, reverted: plan.reverted, recreated: plan.recreated, deleted: plan.deleted });
    expect(done.commit).to.equal(v.vault.head);
    expect(commits()).to.equal(before + 1);
    expect(await content('notes/a.md')).to.equal(text(10).replace('line 9\n', 'mine\n'));
    expect(await content('notes/b.md')).to.equal('bee\n');
    expect(v.vault.manifest.get('notes/c.md')).to.equal(undefined);
    expect(gitIn(v.dir, 'log', '-1', '--format=%s')).to.match(/^Revert changes by agent scout from \d{4}-/);
    gitIn(v.dir, 'fsck', '--strict');
    expect(gitIn(v.dir, 'status', '--porcelain')).to.equal('');
  });

  it('skips a page whose later edit overlaps, with the diff left in place, and undoes the rest', async () => {
    await v.pages.write(scout, { path: 'notes/a.md', content: text(10).replace('line 2\n', 'agent two\n') });
    await v.pages.write(scout, { path: 'notes/b.md', content: 'bee, by the agent\n' });
    const mine = await v.pages.write(owner, { path: 'notes/a.md', content: text(10).replace('line 2\n', 'owner two\n') });
    const done = await run(agentSession());
    expect(done.skipped).to.deep.equal([
      {
        path: 'notes/a.md',
        reason: 'conflict',
        current_hash: mine.page.hash,
        diff: '--- a/notes/a.md\n+++ b/notes/a.md\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+agent two\n line 3\n line 4\n line 5\n',
      },
    ]);
    expect(done.reverted.map((r) => r.path)).to.deep.equal(['notes/b.md']);
    expect(await content('notes/a.md')).to.equal(text(10).replace('line 2\n', 'owner two\n'));
    expect(await content('notes/b.md')).to.equal('bee\n');
  });

  it('keeps an edit someone made between two of the session edits of one page', async () => {
    await v.pages.write(scout, { path: 'notes/a.md', content: text(10).replace('line 1\n', 'agent one\n') });
    await v.pages.write(owner, { path: 'notes/a.md', content: text(10).replace('line 1\n', 'agent one\n').replace('line 5\n', 'mine\n') });
    const edited = (await content('notes/a.md')).replace('line 9\n', 'agent nine\n');
    await v.pages.write(scout, { path: 'notes/a.md', content: edited });
    await run(agentSession());
    expect(await content('notes/a.md')).to.equal(text(10).replace('line 5\n', 'mine\n'));
  });

  it('names why a created, deleted or changed page cannot be undone', async () => {
    await v.pages.write(scout, { path: 'notes/c.md', content: 'agent\n' });
    await v.pages.write(owner, { path: 'notes/c.md', content: 'agent, then mine\n' });
    await v.pages.delete(scout, { path: 'notes/b.md' });
    await v.pages.write(owner, { path: 'notes/b.md', content: 'a new b\n' });
    await v.pages.write(scout, { path: 'notes/keep.md', content: 'kept by the agent\n' });
    await v.pages.delete(owner, { path: 'notes/keep.md' });
    const head = v.vault.head;
    const plan = await run(agentSession());
    expect(plan.skipped.map((s) => [s.path, s.reason])).to.deep.equal([
      ['notes/b.md', 'exists_since'],
      ['notes/c.md', 'conflict'],
      ['notes/keep.md', 'deleted_since'],
    ]);
    expect(plan.commit).to.equal(null);
    expect(v.vault.head).to.equal(head);
  });

  it('answers an empty window, a window before the session and a second revert with an empty plan and no commit', async () => {
    const before = commits();
    const empty = await run({ by: { agent: 'nobody' }, since });
    expect(empty).to.deep.equal({ dry_run: false, commits: [], commit: null, reverted: [], deleted: [], recreated: [], skipped: [] });
    await v.pages.write(scout, { path: 'notes/b.md', content: 'agent\n' });
    expect(
      (await run({ by: { agent: 'scout' }, since: new Date(Date.now() - 3 * hour), until: new Date(Date.now() - 2 * hour) })).commits,
    ).to.deep.equal([]);
    expect((await run({ by: { agent: 'scout' }, since: new Date(Date.now() + hour) })).commits).to.deep.equal([]);
    expect((await run(agentSession())).commit).to.not.equal(null);
    const again = await run(agentSession());
    expect([again.commit, again.reverted, again.skipped]).to.deep.equal([null, [], []]);
    expect(commits()).to.equal(before + 2);
  });

  it('matches a key by name or credential id, and an app by name', async () => {
    await v.pages.write(scout, { path: 'notes/b.md', content: 'agent\n' });
    expect((await run({ by: { key: 'scout-key' }, since }, { dryRun: true })).reverted).to.have.length(1);
    expect((await run({ by: { key: 'k_scout' }, since }, { dryRun: true })).reverted).to.have.length(1);
    expect((await run({ by: { app: 'scout-key' }, since }, { dryRun: true })).reverted).to.have.length(0);
    const app = { name: 'Claude (app)', email: 'dana@quire.invalid', trailers: { 'Quire-Actor': 'app:Claude', 'Quire-Credential': 'g_1' } };
    await v.pages.write(app, { path: 'notes/keep.md', content: 'by the app\n' });
    expect((await run({ by: { app: 'Claude' }, since }, { dryRun: true })).reverted.map((r) => r.path)).to.deep.equal(['notes/keep.md']);
  });

  it('undoes one commit, and refuses a commit not in the history with NOT_FOUND', async () => {
    const first = await v.pages.write(owner, { path: 'notes/a.md', content: text(10).replace('line 3\n', 'three\n') });
    await v.pages.write(owner, { path: 'notes/a.md', content: text(10).replace('line 3\n', 'three\n').replace('line 8\n', 'eight\n') });
    const done = await run({ commit: first.commit! });
    expect(await content('notes/a.md')).to.equal(text(10).replace('line 8\n', 'eight\n'));
    expect(gitIn(v.dir, 'log', '-1', '--format=%s').trim()).to.equal(`Revert ${first.commit!.slice(0, 12)}: Update notes/a.md`);
    expect(done.commits).to.deep.equal([first.commit]);
    const err = await run({ commit: 'f'.repeat(40) }).catch((e: unknown) => e);
    expect(isQuireError(err) && (err as QuireError).code).to.equal('NOT_FOUND');
  });

  it('leaves out what the caller cannot read and skips what it cannot write', async () => {
    await v.pages.write(scout, { path: 'notes/b.md', content: 'agent\n' });
    await v.pages.write(scout, { path: 'secret/x.md', content: 'agent secret\n' });
    await v.pages.write(scout, { path: 'shared/y.md', content: 'agent shared\n' });
    const plan = await run(agentSession(), {
      visible: (p) => !p.startsWith('secret/'),
      writable: (p) => p.startsWith('notes/'),
    });
    expect(JSON.stringify(plan)).to.not.include('secret');
    expect(plan.commits).to.have.length(2);
    expect(plan.reverted.map((r) => r.path)).to.deep.equal(['notes/b.md']);
    expect(plan.skipped.map((s) => [s.path, s.reason])).to.deep.equal([['shared/y.md', 'outside_write_paths']]);
    expect(v.vault.manifest.get('secret/x.md')).to.not.equal(undefined);
    expect(v.vault.manifest.get('shared/y.md')).to.not.equal(undefined);
  });
});
