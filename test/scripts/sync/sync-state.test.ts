import { expect } from 'chai';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conflictCopyPath } from '../../../scripts/sync/conflict-copy.js';
import { SyncError } from '../../../scripts/sync/sync-error.js';
import { STATE_FOLDER, SyncState } from '../../../scripts/sync/sync-state.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** The state of DIR, as a run bound to the user `user` opens it. */
function openAs(dir: string, user = 'ana'): SyncState {
  const state = SyncState.open(dir);
  state.bind({ server: 'http://s', user, device: 'laptop', key: 'digest' });
  return state;
}

describe('quire sync: its state and names', () => {
  let dir: { path: string; cleanup: () => void };
  beforeEach(() => (dir = tempDir('quire-sync-state-')));
  afterEach(() => dir.cleanup());

  it('replays the journal after a kill, skipping the line the kill cut short', async () => {
    const state = openAs(dir.path);
    state.cursor = 'c1';
    state.set('remote', 'a.md', 'h1');
    await state.checkpoint();
    state.set('base', 'a.md', 'h1');
    state.set('remote', 'b.md', 'h2');
    state.flush();
    const journal = readdirSync(join(dir.path, STATE_FOLDER)).find((n) => n.startsWith('journal.'))!;
    appendFileSync(join(dir.path, STATE_FOLDER, journal), '["base","b.m');

    const again = openAs(dir.path);
    expect(again.cursor).to.equal('c1');
    expect([...again.remote]).to.deep.equal([
      ['a.md', 'h1'],
      ['b.md', 'h2'],
    ]);
    expect([...again.base]).to.deep.equal([['a.md', 'h1']]);
  });

  it('reads a format 2 state, writes format 3 with the rows on a line of their own and the digest of a folder in agreement', async () => {
    const v2 = {
      version: 2,
      generation: 4,
      server: 'http://s',
      user: 'ana',
      device: 'laptop',
      key: 'digest',
      cursor: 'c9',
      acked: 'c9',
      files: [
        ['a.md', 'h1', '=', 3, 1000, '=', 9000],
        ['b.md', 'h2', '=', 5, 2000, '=', 9000],
      ],
      refused: {},
    };
    mkdirSync(join(dir.path, STATE_FOLDER));
    writeFileSync(join(dir.path, STATE_FOLDER, 'state.json'), JSON.stringify(v2));
    const state = openAs(dir.path);
    expect(state.agreed).to.equal(true);
    expect(state.savedScan, 'format 2 saved no digest').to.equal(undefined);
    expect([...state.base]).to.deep.equal([
      ['a.md', 'h1'],
      ['b.md', 'h2'],
    ]);
    expect(state.stat.get('b.md')).to.deep.equal([5, 2000, 'h2', 9000]);
    await state.checkpoint();

    const [header, rows, ...rest] = readFileSync(join(dir.path, STATE_FOLDER, 'state.json'), 'utf8').split('\n');
    expect(rest).to.deep.equal([]);
    expect(JSON.parse(header)).to.include({ version: 3, cursor: 'c9', agreed: true }).and.not.have.property('files');
    expect(JSON.parse(rows)).to.deep.equal(v2.files);
    const again = openAs(dir.path);
    expect(again.savedScan).to.be.a('string').and.equal(state.savedScan);
    expect(again.stat.get('a.md')).to.deep.equal([3, 1000, 'h1', 9000]);

    // A file seen within the racy window is read again by the next scan: no digest stands for it.
    again.stat.set('a.md', [3, 8500, 'h1', 9000]);
    await again.checkpoint();
    expect(openAs(dir.path).savedScan).to.equal(undefined);
  });

  it('knows a state saved with every hash in agreement, and forgets it at any step, journal line or disagreeing path', async () => {
    const state = openAs(dir.path);
    state.cursor = 'c1';
    state.set('remote', 'a.md', 'h1');
    state.set('base', 'a.md', 'h1');
    state.stat.set('a.md', [3, 1000, 'h1', 9000]);
    expect(state.agreed, 'changed since saved').to.equal(false);
    await state.checkpoint();
    expect(state.agreed, 'as saved').to.equal(true);
    expect(openAs(dir.path).agreed, 'reopened').to.equal(true);

    state.set('remote', 'a.md', 'h2');
    expect(state.agreed, 'after a step').to.equal(false);
    state.flush();
    const replayed = openAs(dir.path);
    expect(replayed.agreed, 'after a journal line').to.equal(false);
    expect(replayed.remote.get('a.md')).to.equal('h2');

    await state.checkpoint();
    expect(state.agreed, 'remote differs from base').to.equal(false);
    state.set('base', 'a.md', 'h2');
    state.stat.set('a.md', [3, 1000, 'h2', 9000]);
    state.stat.set('local-only.md', [1, 1000, 'h3', 9000]);
    await state.checkpoint();
    expect(openAs(dir.path).agreed, 'a file the server does not have').to.equal(false);
  });

  it('refuses a folder that syncs with another user', async () => {
    await openAs(dir.path).checkpoint();
    expect(() => openAs(dir.path, 'bob')).to.throw(SyncError, /"ana"/);
  });

  it('names conflict copies after the file, device and minute, keeps the extension, and counts up when taken', () => {
    const at = new Date(2026, 0, 2, 3, 4);
    const none = new Map<string, { hash: string }>();
    expect(conflictCopyPath('a/b.c.md', 'h', 'my/phone', at, none, () => false)).to.equal('a/b.c (conflict my-phone 2026-01-02 0304).md');
    expect(conflictCopyPath('a/.hidden', 'h', 'pc', at, none, () => false)).to.equal('a/.hidden (conflict pc 2026-01-02 0304)');
    const taken = new Map([['x (conflict pc 2026-01-02 0304).md', { hash: 'other' }]]);
    expect(conflictCopyPath('x.md', 'h', 'pc', at, taken, () => false)).to.equal('x (conflict pc 2026-01-02 0304 2).md');
    // The same local version already copied (a run killed after writing it) keeps its copy, whatever the minute.
    const made = new Map([['x (conflict pc 2025-12-31 2359).md', { hash: 'h' }]]);
    expect(conflictCopyPath('x.md', 'h', 'pc', at, made, () => false)).to.equal('x (conflict pc 2025-12-31 2359).md');
  });
});
