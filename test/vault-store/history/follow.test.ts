import { expect } from 'chai';
import { VaultHistory, type ChangeFeed } from '../../../vault-store/history/changes.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { scaled } from '../../helpers/soak.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

/** What a sync client keeps: path → blob id, changed only through the feed. */
function apply(state: Map<string, string>, feed: ChangeFeed): void {
  for (const change of feed.changes) {
    for (const p of change.paths) {
      if (p.op === 'delete') {
        expect(state.has(p.path), `delete of unknown ${p.path}`).to.equal(true);
        state.delete(p.path);
      } else {
        expect(state.has(p.path), `${p.op} of ${p.path}`).to.equal(p.op === 'modify');
        state.set(p.path, p.hash!);
      }
    }
  }
}

/** Writes, deletes and renames over 40 paths (500 when soaking). */
const STORM = scaled(80, 500);
/**
 * Writers, each sending its next write when the last one is answered: writes queued all at
 * once would land in a few group commits, too fast for the reader to page in between.
 */
const WRITERS = 8;

async function writeStorm(v: TempVault): Promise<unknown> {
  return Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = w; i < STORM; i += WRITERS) await stormOp(v, i);
    }),
  );
}

function stormOp(v: TempVault, i: number): Promise<unknown> {
  const path = `f${i % 4}/p${(i * 7) % 40}.md`;
  const kind = i % 5;
  return v.vault.mutate(testAuthor, `op ${i}`, () => {
    const exists = v.vault.manifest.get(path) !== undefined;
    if (kind === 3 && exists) return [{ path, content: null }];
    if (kind === 4 && exists) {
      const to = `renamed/${i}.md`;
      return [
        { path, content: null },
        { path: to, content: new TextEncoder().encode(`moved ${i}`) },
      ];
    }
    return [{ path, content: new TextEncoder().encode(`body ${i}`) }];
  });
}

describe('following the change feed while writes land', () => {
  let v: TempVault;
  afterEach(() => v?.cleanup());

  it(`a reader paging through ${STORM} concurrent writes ends with exactly the server state`, async function () {
    this.timeout(60_000);
    v = await tempVault({ 'seed.md': 'seed', 'f0/p0.md': 'zero' });
    const state = new Map<string, string>();
    // One history for the whole run, as a server keeps: its chain memo grows with the writes.
    const history = new VaultHistory(v.vault);
    let feed = await history.snapshot();
    const start = feed.head;
    apply(state, feed);
    const seen = new Set<string>();
    let done = false;
    const storm = writeStorm(v).then(() => {
      done = true;
    });
    let pagesDuringWrites = 0;
    // Page until the writes are over and the feed has caught up with the head.
    while (!done || feed.has_more || feed.cursor !== v.vault.head) {
      feed = await history.changesSince({ since: feed.cursor, limit: 17 });
      for (const c of feed.changes) {
        expect(seen.has(c.commit), `repeated ${c.commit}`).to.equal(false);
        seen.add(c.commit);
      }
      apply(state, feed);
      if (!done && feed.changes.length) pagesDuringWrites += 1;
      // A client polls when it has caught up; it pages straight on otherwise.
      if (!feed.has_more) await new Promise((r) => setTimeout(r, 5));
    }
    await storm;
    const server = new Map(v.vault.manifest.pages().map((p) => [p, v.vault.manifest.get(p)!.oid]));
    expect([...state].sort()).to.deep.equal([...server].sort());
    expect(pagesDuringWrites, 'pages read while writes were landing').to.be.greaterThan(5);
    // Every storm commit touches a page, so the feed must list each one once, in order.
    expect([...seen]).to.deep.equal(gitIn(v.dir, 'rev-list', '--reverse', `${start}..HEAD`).trim().split('\n'));
  });
});
