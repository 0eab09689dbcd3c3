import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { QuireError } from '../../../vault-store/errors.js';
import { PageTimeline } from '../../../vault-store/history/page-timeline.js';
import { Pages } from '../../../vault-store/pages.js';
import { Vault } from '../../../vault-store/vault.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn, testAuthor } from '../../helpers/temp-vault.js';

const all = () => true;
const COMMITS = 2_000;

/** A vault with a long history, written with `git fast-import` (a page in one of 20 folders a commit). */
function longHistory(dir: string): void {
  mkdirSync(dir);
  gitIn(dir, 'init', '-q', '-b', 'main');
  const stream: string[] = [];
  for (let i = 1; i <= COMMITS; i++) {
    const message = `Commit ${i}\n`;
    const text = `# Page ${i}\n`;
    stream.push(
      'commit refs/heads/main',
      `committer T <t@x> ${1_700_000_000 + i * 60} +0000`,
      `data ${Buffer.byteLength(message)}\n${message}`,
      `M 100644 inline f${i % 20}/p${i % 97}.md\ndata ${Buffer.byteLength(text)}\n${text}`,
      '',
    );
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: stream.join('\n') });
  gitIn(dir, 'reset', '-q', '--hard');
}

describe('the change index catching up on a long history', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let vault: Vault;
  before(async () => {
    dir = tempDir('quire-catch-up-');
    longHistory(join(dir.path, 'vault'));
    vault = await Vault.open(join(dir.path, 'vault'));
  });
  after(() => dir.cleanup());

  const history = (timeline: PageTimeline, path?: string) => timeline.history({ path, limit: 50, filter: {}, visible: all });

  it('answers VAULT_BUSY with retry_after past its wait, goes on building, then answers as a full build does', async () => {
    const impatient = new PageTimeline(vault, { waitMs: 1 });
    const busy = await history(impatient, 'f3/p3.md').catch((e: unknown) => e);
    expect(busy).to.be.instanceOf(QuireError);
    expect((busy as QuireError).code).to.equal('VAULT_BUSY');
    expect((busy as QuireError).details.retry_after).to.be.within(1, 60);

    const patient = new PageTimeline(vault, { waitMs: 60_000 });
    const expected = await history(patient, 'f3/p3.md');
    expect(expected.entries).to.have.length.above(0);
    let answer: unknown;
    for (let tries = 0; tries < 600 && !(answer && !(answer instanceof Error)); tries++) {
      answer = await history(impatient, 'f3/p3.md').catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answer).to.deep.equal(expected);
  });

  it('leaves the event loop free while it builds: a write lands before the first query is answered', async () => {
    // The vault's first write sets up its git index: not what is measured against the build.
    const pages = new Pages(vault);
    await pages.write(testAuthor, { path: 'during/warm-up.md', content: '# Warm-up\n' });
    const timeline = new PageTimeline(vault, { waitMs: 60_000 });
    let answered = false;
    const query = history(timeline).then((page) => ((answered = true), page));
    const written = await pages.write(testAuthor, { path: 'during/build.md', content: '# During\n' });
    expect(answered, 'the build finished before the write').to.equal(false);
    const page = await query;
    // The query was for the head before the write; the next one follows the write.
    expect(page.entries[0].commit).to.not.equal(written.commit);
    expect((await history(timeline, 'during/build.md')).entries.map((e) => e.commit)).to.deep.equal([written.commit]);
  });

  it('stops a build on close and resumes from what it saved', async () => {
    const file = join(dir.path, 'index', 'history.json');
    const first = new PageTimeline(vault, { file, waitMs: 60_000 });
    const query = history(first, 'f7/p7.md').catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await first.close();
    // Closed part-way: the query waiting on the build is told to come back.
    expect(((await query) as QuireError).code).to.equal('VAULT_BUSY');
    // Both builds may take longer than a query's usual wait on a loaded machine: the claim is what they answer.
    const resumed = await history(new PageTimeline(vault, { file, waitMs: 60_000 }), 'f7/p7.md');
    expect(resumed).to.deep.equal(await history(new PageTimeline(vault, { waitMs: 60_000 }), 'f7/p7.md'));
  });
});
