import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashBlob } from '../../vault-store/git/repo.js';
import { gitIn, tempVault, testAuthor } from '../helpers/temp-vault.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

const text = (s: string) => new TextEncoder().encode(s);

describe('group commit', () => {
  let v: TempVault;
  afterEach(() => v?.cleanup());

  it('makes each of many queued writes its own commit, in the order they were queued, landed together', async () => {
    v = await tempVault({ 'seed.md': 'seed' });
    const start = v.vault.head;
    // What the branch was when each commit was announced: ahead of it when commits landed together.
    const headWhenHeard: [string, string][] = [];
    v.vault.onCommit((event) => void headWhenHeard.push([event.commit, v.vault.head]));
    const events = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        v.vault.mutate(testAuthor, `op ${i}`, () => [{ path: `n/p${i % 5}.md`, content: text(`body ${i}`) }]),
      ),
    );
    const chain = gitIn(v.dir, 'rev-list', '--reverse', `${start}..main`).trim().split('\n');
    expect(chain).to.deep.equal(events.map((e) => e!.commit));
    expect(chain.map((c) => gitIn(v.dir, 'log', '-1', '--format=%s', c).trim())).to.deep.equal(events.map((_, i) => `op ${i}`));
    for (const [i, e] of events.entries()) expect(e!.parent).to.equal(i === 0 ? start : events[i - 1]!.commit);
    expect(headWhenHeard.map(([c]) => c)).to.deep.equal(chain);
    expect(headWhenHeard.some(([commit, head]) => commit !== head)).to.equal(true);
    for (let p = 0; p < 5; p++) expect(gitIn(v.dir, 'show', `main:n/p${p}.md`)).to.equal(`body ${p + 10 < 12 ? p + 10 : p + 5}`);
    expect(gitIn(v.dir, 'status', '--porcelain')).to.equal('');
    gitIn(v.dir, 'fsck', '--strict', '--no-dangling');
  });

  it('plans each write on the ones before it in the batch, and fails a conflicting one alone', async () => {
    v = await tempVault({ 'a.md': 'a0' });
    const a0 = v.vault.manifest.get('a.md')!.oid;
    const results = await Promise.allSettled([
      v.pages.write(testAuthor, { path: 'a.md', content: 'a1', baseHash: a0 }),
      // Planned after the write above: a0 is stale by then.
      v.pages.write(testAuthor, { path: 'a.md', content: 'lost', baseHash: a0 }),
      v.pages.write(testAuthor, { path: 'a.md', content: 'a2', baseHash: hashBlob(text('a1')) }),
      v.pages.write(testAuthor, { path: 'b.md', content: 'b', baseHash: null }),
      v.pages.write(testAuthor, { path: 'b.md', content: 'twice', baseHash: null }),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected']);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).to.have.property('code', 'CONFLICT');
    expect(gitIn(v.dir, 'log', '--format=%s', '-3')).to.equal('Update b.md\nUpdate a.md\nUpdate a.md\n');
    expect(gitIn(v.dir, 'show', 'main:a.md')).to.equal('a2');
    expect(gitIn(v.dir, 'show', 'main:b.md')).to.equal('b');
    expect(gitIn(v.dir, 'status', '--porcelain')).to.equal('');
  });

  it('never takes the old working file of a page written earlier in the batch for a folder edit (it is written at landing)', async () => {
    v = await tempVault({ 'a.md': 'a0', 'b.md': 'b0' });
    await Promise.all([
      v.pages.write(testAuthor, { path: 'a.md', content: 'a1' }),
      v.pages.write(testAuthor, { path: 'a.md', content: 'a2' }),
      v.pages.write(testAuthor, { path: 'b.md', content: 'b1' }),
    ]);
    expect(gitIn(v.dir, 'log', '--format=%an %s', '-3')).to.equal('key:test Update b.md\nkey:test Update a.md\nkey:test Update a.md\n');
    expect(gitIn(v.dir, 'show', 'main:a.md')).to.equal('a2');
    expect(gitIn(v.dir, 'status', '--porcelain')).to.equal('');
  });

  it('takes a write queued while its commits are being staged into the running batch, never past a task queued before it', async () => {
    v = await tempVault({ 'seed.md': 'seed' });
    const headWhenHeard = new Map<string, string>();
    v.vault.onCommit((event) => void headWhenHeard.set(event.commit, v.vault.head));
    const order: string[] = [];
    let joined: Promise<unknown> | undefined;
    const first = await v.vault.mutate(testAuthor, 'first', () => {
      joined ??= v.vault.mutate(testAuthor, 'joined', () => [{ path: 'b.md', content: text('b') }]);
      return [{ path: 'a.md', content: text('a') }];
    });
    const second = (await joined) as { commit: string };
    // Landed together: the first commit was announced with the branch already at the second.
    expect(headWhenHeard.get(first!.commit)).to.equal(second.commit);

    let after: Promise<unknown> | undefined;
    await v.vault.mutate(testAuthor, 'third', () => {
      after ??= Promise.all([
        v.vault.exclusive(async () => void order.push('exclusive')),
        v.vault.mutate(testAuthor, 'fourth', () => (order.push('fourth'), [{ path: 'c.md', content: text('c') }])),
      ]);
      return [{ path: 'a.md', content: text('a2') }];
    });
    await after;
    expect(order).to.deep.equal(['exclusive', 'fourth']);
    expect(gitIn(v.dir, 'log', '--format=%s', '-4')).to.equal('fourth\nthird\njoined\nfirst\n');
    expect(gitIn(v.dir, 'status', '--porcelain')).to.equal('');
  });

  it('hears its own moves of the branch without a turn in the queue, which would cut the batch taking writes in two', async () => {
    v = await tempVault({ 'seed.md': 'seed' });
    const settled = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => 'done'), sleep(ms, 'waiting')]);
    let open!: () => void;
    const running = v.vault.exclusive(() => new Promise<void>((resolve) => (open = resolve)));
    // The branch is where the vault put it: nothing to follow, so nothing waits for the task.
    expect(await settled(v.vault.follow(), 1000)).to.equal('done');
    const writes = [0, 1, 2].map((i) => v.vault.mutate(testAuthor, `w${i}`, () => [{ path: `w${i}.md`, content: text(`${i}`) }]));
    // Moved by git in the folder: the follow takes its turn behind the task and what queued before it.
    gitIn(v.dir, 'commit', '-q', '--allow-empty', '-m', 'from git', '--author', 'Ada <ada@example.com>');
    const outside = gitIn(v.dir, 'rev-parse', 'main').trim();
    const follow = v.vault.follow();
    expect(await settled(follow, 50)).to.equal('waiting');
    open();
    await Promise.all([running, follow, ...writes]);
    expect(gitIn(v.dir, 'log', '--format=%s', '-4')).to.equal('w2\nw1\nw0\nfrom git\n');
    expect(gitIn(v.dir, 'rev-parse', 'main~3').trim()).to.equal(outside);
  });
});
