import { expect } from 'chai';
import { HIDDEN_MESSAGE, VaultHistory, type ChangeFeed } from '../../../vault-store/history/changes.js';
import { QuireError } from '../../../vault-store/errors.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

describe('change feed', () => {
  let v: TempVault;
  afterEach(() => v?.cleanup());

  it('lists commits after the cursor oldest first, pages and attachments with their kind, with add/modify/delete', async () => {
    v = await tempVault({ 'a.md': 'one' });
    const start = v.vault.head;
    const w1 = await v.pages.write(testAuthor, { path: 'notes/b.md', content: 'two' });
    await v.pages.write(testAuthor, { path: 'a.md', content: 'one!' });
    await v.vault.mutate(testAuthor, 'Attach', () => [{ path: 'files/pic.png', content: new Uint8Array([1, 2]) }]);
    await v.pages.delete(testAuthor, { path: 'notes/b.md' });
    const feed = await new VaultHistory(v.vault).changesSince({ since: start, limit: 100 });
    expect(feed.head).to.equal(v.vault.head);
    expect(feed.cursor).to.equal(v.vault.head);
    expect(feed.has_more).to.equal(false);
    expect(feed.changes.map((c) => c.paths)).to.deep.equal([
      [{ path: 'notes/b.md', op: 'add', hash: w1.page.hash, kind: 'page' }],
      [{ path: 'a.md', op: 'modify', hash: v.vault.manifest.get('a.md')!.oid, kind: 'page' }],
      [{ path: 'files/pic.png', op: 'add', hash: v.vault.manifest.get('files/pic.png')!.oid, kind: 'attachment' }],
      [{ path: 'notes/b.md', op: 'delete', hash: null, kind: 'page' }],
    ]);
    expect(feed.changes[0]).to.include({ commit: w1.commit, actor: 'key:test', message: 'Update notes/b.md' });
    expect(Date.parse(feed.changes[0].at)).to.be.closeTo(Date.now(), 60_000);
  });

  it('takes the actor from a Quire-Actor trailer when the commit has one', async () => {
    v = await tempVault();
    const start = v.vault.head;
    await v.pages.write(
      { ...testAuthor, trailers: { 'Quire-Actor': 'agent:gardener', 'Quire-Key': 'k1' } },
      { path: 'x.md', content: 'x' },
    );
    const [change] = (await new VaultHistory(v.vault).changesSince({ since: start, limit: 10 })).changes;
    expect(change).to.include({ actor: 'agent:gardener', message: 'Update x.md' });
  });

  it('shows a rename as a delete and an add in the same commit', async () => {
    v = await tempVault({ 'old/name.md': 'body' });
    const start = v.vault.head;
    const oid = v.vault.manifest.get('old/name.md')!.oid;
    await v.vault.mutate(testAuthor, 'Rename', () => [
      { path: 'old/name.md', content: null },
      { path: 'new/name.md', content: new TextEncoder().encode('body') },
    ]);
    const feed = await new VaultHistory(v.vault).changesSince({ since: start, limit: 10 });
    expect(feed.changes).to.have.length(1);
    expect(feed.changes[0].paths).to.deep.equal([
      { path: 'new/name.md', op: 'add', hash: oid, kind: 'page' },
      { path: 'old/name.md', op: 'delete', hash: null, kind: 'page' },
    ]);
  });

  it('pages with the cursor, and a page with nothing new returns the same cursor', async () => {
    v = await tempVault();
    const start = v.vault.head;
    for (let i = 0; i < 7; i++) await v.pages.write(testAuthor, { path: `p${i}.md`, content: `${i}` });
    const seen: string[] = [];
    let feed: ChangeFeed = { head: '', cursor: start, has_more: true, changes: [] };
    const hasMore: boolean[] = [];
    while (feed.has_more) {
      feed = await new VaultHistory(v.vault).changesSince({ since: feed.cursor, limit: 3 });
      hasMore.push(feed.has_more);
      seen.push(...feed.changes.flatMap((c) => c.paths.map((p) => p.path)));
    }
    expect(hasMore).to.deep.equal([true, true, false]);
    expect(seen).to.deep.equal(['p0.md', 'p1.md', 'p2.md', 'p3.md', 'p4.md', 'p5.md', 'p6.md']);
    const again = await new VaultHistory(v.vault).changesSince({ since: feed.cursor, limit: 3 });
    expect(again).to.deep.equal({ head: v.vault.head, cursor: feed.cursor, has_more: false, changes: [] });
  });

  it('covers hidden commits with the cursor but leaves them out of changes', async () => {
    v = await tempVault();
    const start = v.vault.head;
    await v.pages.write(testAuthor, { path: 'private/secret.md', content: 's' });
    const shared = await v.pages.write(testAuthor, { path: 'shared/a.md', content: 'a' });
    const visible = (path: string) => path.startsWith('shared/');
    const first = await new VaultHistory(v.vault).changesSince({ since: start, limit: 1, visible });
    expect(first.changes).to.deep.equal([]);
    expect(first.has_more).to.equal(true);
    const second = await new VaultHistory(v.vault).changesSince({ since: first.cursor, limit: 1, visible });
    expect(second.changes.map((c) => c.commit)).to.deep.equal([shared.commit]);
    expect(second.cursor).to.equal(shared.commit);
    const snap = await new VaultHistory(v.vault).snapshot({ visible });
    expect(snap.changes[0].paths.map((p) => p.path)).to.deep.equal(['shared/a.md']);
  });

  it('hides the message of a commit that also touched a hidden file, attachments included, keeping commit, time and actor', async () => {
    v = await tempVault({ 'shared/a.md': 'a' });
    const start = v.vault.head;
    const visible = (path: string) => path.startsWith('shared/');
    await v.vault.mutate(testAuthor, 'Add shared/b.md and private/plan.png', () => [
      { path: 'shared/b.md', content: new Uint8Array([1]) },
      { path: 'private/plan.png', content: new Uint8Array([2]) },
    ]);
    await v.pages.write(testAuthor, { path: 'shared/a.md', content: 'a2' });
    const owner = await new VaultHistory(v.vault).changesSince({ since: start, limit: 10 });
    const agent = await new VaultHistory(v.vault).changesSince({ since: start, limit: 10, visible });
    expect(owner.changes[0].message).to.equal('Add shared/b.md and private/plan.png');
    expect(agent.changes.map((c) => c.message)).to.deep.equal([HIDDEN_MESSAGE, owner.changes[1].message]);
    expect(agent.changes[0]).to.deep.equal({
      ...owner.changes[0],
      message: HIDDEN_MESSAGE,
      paths: owner.changes[0].paths.filter((p) => visible(p.path)),
    });
    // The snapshot carries head's message: hidden while head touched a hidden file.
    expect((await new VaultHistory(v.vault).snapshot({ visible })).changes[0].message).to.equal(owner.changes[1].message);
    await v.vault.mutate(testAuthor, 'Touch private/plan.png', () => [{ path: 'private/plan.png', content: new Uint8Array([3]) }]);
    expect((await new VaultHistory(v.vault).snapshot({ visible })).changes[0].message).to.equal(HIDDEN_MESSAGE);
    expect((await new VaultHistory(v.vault).snapshot()).changes[0].message).to.equal('Touch private/plan.png');
  });

  it('gives a snapshot of every current page and attachment as an add at head', async () => {
    v = await tempVault({ 'b.md': 'b', 'a/c.md': 'c' });
    await v.vault.mutate(testAuthor, 'Attach', () => [{ path: 'img.png', content: new Uint8Array([9]) }]);
    const snap = await new VaultHistory(v.vault).snapshot();
    expect(snap).to.include({ head: v.vault.head, cursor: v.vault.head, has_more: false });
    expect(snap.changes).to.have.length(1);
    expect(snap.changes[0].commit).to.equal(v.vault.head);
    expect(snap.changes[0].paths).to.deep.equal([
      { path: 'a/c.md', op: 'add', hash: v.vault.manifest.get('a/c.md')!.oid, kind: 'page' },
      { path: 'b.md', op: 'add', hash: v.vault.manifest.get('b.md')!.oid, kind: 'page' },
      { path: 'img.png', op: 'add', hash: v.vault.manifest.get('img.png')!.oid, kind: 'attachment' },
    ]);
  });

  it('rejects a cursor from another vault with CURSOR_UNKNOWN, and says it is not in history', async () => {
    v = await tempVault({ 'a.md': 'a' });
    const other = await tempVault({ 'z.md': 'z' });
    try {
      const foreign = other.vault.head;
      expect(await new VaultHistory(v.vault).contains(foreign)).to.equal(false);
      expect(await new VaultHistory(v.vault).contains(v.vault.head)).to.equal(true);
      const err = await new VaultHistory(v.vault).changesSince({ since: foreign, limit: 10 }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(QuireError);
      expect((err as QuireError).code).to.equal('CURSOR_UNKNOWN');
      const junk = await new VaultHistory(v.vault).changesSince({ since: 'not-a-commit', limit: 10 }).catch((e: unknown) => e);
      expect((junk as QuireError).code).to.equal('CURSOR_UNKNOWN');
    } finally {
      other.cleanup();
    }
  });

  it('agrees with git log --name-status on the same commits', async () => {
    v = await tempVault({ 'a.md': 'a', 'd/e.md': 'e' });
    const start = v.vault.head;
    await v.pages.write(testAuthor, { path: 'd/f.md', content: 'f' });
    await v.pages.delete(testAuthor, { path: 'a.md' });
    await v.pages.write(testAuthor, { path: 'd/e.md', content: 'e2' });
    const feed = await new VaultHistory(v.vault).changesSince({ since: start, limit: 10 });
    const ours = feed.changes.reverse().flatMap((c) => c.paths.map((p) => `${{ add: 'A', modify: 'M', delete: 'D' }[p.op]}\t${p.path}`));
    const native = gitIn(v.dir, 'log', '--no-renames', '--name-status', '--format=', `${start}..HEAD`).split('\n').filter(Boolean);
    expect(ours).to.deep.equal(native);
  });
});
