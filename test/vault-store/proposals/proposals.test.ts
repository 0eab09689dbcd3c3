import { expect } from 'chai';
import { Proposals } from '../../../vault-store/proposals/proposals.js';
import { isQuireError, type QuireError } from '../../../vault-store/errors.js';
import { Vault } from '../../../vault-store/vault.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';

const agent = {
  name: 'scout (agent, key:scout)',
  email: 'dana@quire.invalid',
  trailers: { 'Quire-Actor': 'key:scout', 'Quire-Agent': 'scout' },
};
const owner = { name: 'laptop (key)', email: 'dana@quire.invalid', trailers: { 'Quire-Actor': 'key:laptop' } };

async function rejection(promise: Promise<unknown>): Promise<QuireError> {
  try {
    await promise;
  } catch (err) {
    if (isQuireError(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('Proposals', () => {
  let v: Awaited<ReturnType<typeof tempVault>>;
  let proposals: Proposals;
  const text = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

  beforeEach(async () => {
    v = await tempVault({ 'notes/a.md': text(20), 'notes/b.md': 'bee\n' });
    proposals = new Proposals(v.vault);
  });
  afterEach(() => v.cleanup());

  it('keeps a proposal on its own ref, outside main and the working tree, across a reopen', async () => {
    const head = v.vault.head;
    const p = await proposals.create(agent, {
      title: 'New idea',
      rationale: 'because',
      changes: [{ path: 'ideas/new.md', content: '# New\n' }],
    });
    expect(p.status).to.equal('pending');
    expect(p.changes).to.deep.equal([{ path: 'ideas/new.md', hash: p.changes[0].hash, base_hash: null }]);
    expect(v.vault.head).to.equal(head);
    expect(gitIn(v.dir, 'show-ref')).to.include(`refs/quire/proposals/${p.id}`);
    expect(gitIn(v.dir, 'ls-tree', '-r', '--name-only', 'HEAD')).not.to.include('ideas/new.md');
    expect(gitIn(v.dir, 'show', `refs/quire/proposals/${p.id}:files/ideas/new.md`)).to.equal('# New\n');

    const reopened = new Proposals(await Vault.open(v.dir));
    const [listed] = await reopened.list({ status: 'pending' });
    expect(listed).to.deep.equal(p);
    gitIn(v.dir, 'fsck', '--strict');
  });

  it('applies every change in one commit on main that names the proposal and its agent', async () => {
    const a = await v.pages.read('notes/a.md');
    const p = await proposals.create(agent, {
      title: 'Tidy',
      rationale: 'r',
      changes: [
        { path: 'notes/a.md', content: 'rewritten\n', base_hash: a.hash },
        { path: 'notes/b.md', delete: true },
        { path: 'notes/c.md', content: 'sea\n' },
      ],
    });
    const before = v.vault.head;
    const approved = await proposals.approve(owner, p.id);
    expect(approved.status).to.equal('approved');
    expect(approved.decided_by).to.deep.include({ actor: 'key:laptop' });
    expect(gitIn(v.dir, 'rev-list', `${before}..HEAD`).trim().split('\n')).to.have.length(1);
    expect(gitIn(v.dir, 'show', '--name-status', '--format=%B', 'HEAD'))
      .to.include(`Quire-Proposal: ${p.id}`)
      .and.include('Quire-Proposed-By: scout')
      .and.match(/M\tnotes\/a\.md/)
      .and.match(/D\tnotes\/b\.md/)
      .and.match(/A\tnotes\/c\.md/);
    expect((await proposals.get(p.id)).status).to.equal('approved');
    expect((await rejection(proposals.reject(owner, p.id))).code).to.equal('CONFLICT');
  });

  it('refuses approval when a page moved under an overlapping edit, applying nothing', async () => {
    const p = await proposals.create(agent, {
      title: 't',
      rationale: 'r',
      changes: [
        { path: 'notes/a.md', content: text(20).replace('line 5\n', 'LINE FIVE\n') },
        { path: 'notes/d.md', content: 'new\n' },
      ],
    });
    const moved = await v.pages.write(testAuthor, { path: 'notes/a.md', content: text(20).replace('line 5\n', 'line five\n') });
    const head = v.vault.head;
    const err = await rejection(proposals.approve(owner, p.id));
    expect(err.code).to.equal('CONFLICT');
    expect(err.details.conflicts).to.deep.equal([
      {
        path: 'notes/a.md',
        base_hash: p.changes[0].base_hash,
        current_hash: moved.page.hash,
        merge: text(20).replace('line 5\n', '<<<<<<< ours\nline five\n=======\nLINE FIVE\n>>>>>>> theirs\n'),
      },
    ]);
    expect(v.vault.head).to.equal(head);
    expect(v.vault.manifest.get('notes/d.md')).to.equal(undefined);
    const detail = await proposals.get(p.id);
    expect(detail.status).to.equal('pending');
    expect(detail.applies).to.equal('conflict');
  });

  it('merges a proposal with an edit made since when the two do not overlap', async () => {
    const p = await proposals.create(agent, {
      title: 't',
      rationale: 'r',
      changes: [{ path: 'notes/a.md', content: text(20).replace('line 2\n', 'line two\n') }],
    });
    await v.pages.write(testAuthor, { path: 'notes/a.md', content: text(20).replace('line 18\n', 'line eighteen\n') });
    expect((await proposals.get(p.id)).applies).to.equal('merge');
    await proposals.approve(owner, p.id);
    expect((await v.pages.read('notes/a.md')).content).to.equal(
      text(20).replace('line 2\n', 'line two\n').replace('line 18\n', 'line eighteen\n'),
    );
  });

  it('shows a unified diff against the current page, as diff -u does', async () => {
    const proposed = text(20).replace('line 3\n', 'three\n').replace('line 15\n', '') + 'line 21\n';
    const p = await proposals.create(agent, {
      title: 't',
      rationale: 'r',
      changes: [
        { path: 'notes/a.md', content: proposed },
        { path: 'notes/b.md', delete: true },
      ],
    });
    const detail = await proposals.get(p.id);
    expect(detail.applies).to.equal('clean');
    expect(detail.diffs[0].diff).to.equal(
      [
        '--- a/notes/a.md',
        '+++ b/notes/a.md',
        '@@ -1,6 +1,6 @@',
        ' line 1',
        ' line 2',
        '-line 3',
        '+three',
        ' line 4',
        ' line 5',
        ' line 6',
        '@@ -12,9 +12,9 @@',
        ' line 12',
        ' line 13',
        ' line 14',
        '-line 15',
        ' line 16',
        ' line 17',
        ' line 18',
        ' line 19',
        ' line 20',
        '+line 21',
        '',
      ].join('\n'),
    );
    expect(detail.diffs[1]).to.deep.include({
      path: 'notes/b.md',
      delete: true,
      diff: '--- a/notes/b.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bee\n',
    });
  });

  it('refuses a stale base_hash, a duplicate path and deleting a missing page at creation', async () => {
    const stale = 'f'.repeat(40);
    expect(
      (
        await rejection(
          proposals.create(agent, { title: 't', rationale: 'r', changes: [{ path: 'notes/a.md', content: 'x', base_hash: stale }] }),
        )
      ).code,
    ).to.equal('CONFLICT');
    expect(
      (
        await rejection(
          proposals.create(agent, {
            title: 't',
            rationale: 'r',
            changes: [
              { path: 'x.md', content: 'x' },
              { path: 'x.md', content: 'y' },
            ],
          }),
        )
      ).code,
    ).to.equal('INVALID_REQUEST');
    expect(
      (await rejection(proposals.create(agent, { title: 't', rationale: 'r', changes: [{ path: 'nope.md', delete: true }] }))).code,
    ).to.equal('NOT_FOUND');
    expect(await proposals.list()).to.deep.equal([]);
  });

  it('hides proposals that touch a page the caller cannot see', async () => {
    const p = await proposals.create(agent, { title: 't', rationale: 'r', changes: [{ path: 'private/x.md', content: 'x' }] });
    const visible = (path: string) => path.startsWith('notes/');
    expect(await proposals.list({ visible })).to.deep.equal([]);
    expect((await rejection(proposals.get(p.id, visible))).code).to.equal('NOT_FOUND');
  });
});
