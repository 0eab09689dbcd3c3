import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';

const savedCommit = (indexDir: string) => /"commit":"([0-9a-f]+)"/.exec(readFileSync(join(indexDir, 'knowledge', 'manifest'), 'utf8'))?.[1];

describe('Knowledge saves', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let indexDir: { path: string; cleanup: () => void };
  let knowledge: Knowledge | undefined;

  beforeEach(async () => {
    ctx = await tempVault({ 'notes/Gardening.md': '# Gardening\n\nTomatoes need sun and regular watering.\n' });
    indexDir = tempDir('quire-index-');
  });
  afterEach(async () => {
    await knowledge?.close();
    knowledge = undefined;
    ctx.cleanup();
    indexDir.cleanup();
  });

  it('saves at most persistDelayMs after the first unsaved commit, even while writes keep coming', async () => {
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: 150 });
    const opened = savedCommit(indexDir.path);
    const commits: string[] = [];
    const started = Date.now();
    // A write every 30 ms: a quiet-time debounce of 150 ms would never fire (the bound is for a loaded machine).
    while (Date.now() - started < 10_000) {
      commits.push((await ctx.pages.write(testAuthor, { path: 'notes/Log.md', content: `entry ${commits.length}\n` })).commit);
      if (savedCommit(indexDir.path) !== opened) break;
      await sleep(30);
    }
    expect(savedCommit(indexDir.path)).to.not.equal(opened);
    expect(commits).to.include(savedCommit(indexDir.path));
  });

  it('removes the single index file of older versions and rebuilds', async () => {
    writeFileSync(join(indexDir.path, 'knowledge.idx'), 'quire-knowledge {"version":5}\n');
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('rebuilt');
    expect(existsSync(join(indexDir.path, 'knowledge.idx'))).to.equal(false);
  });

  it('rebuilds when a stored page body fails its check, and then shows the right snippet', async () => {
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    const before = knowledge.search('watering').results;
    await knowledge.close();
    const dir = join(indexDir.path, 'knowledge');
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.dat'))!,
    );
    writeFileSync(file, readFileSync(file, 'utf8').replace('regular', 'REGULAR'));
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom, 'bodies are checked when read, not at open').to.equal('persisted');
    expect(knowledge.search('watering').results[0].snippet).to.not.include('REGULAR');
    const k = knowledge;
    await until('the rebuild', 5000, () => JSON.stringify(k.search('watering').results) === JSON.stringify(before));
  });
});
