import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import type { Task } from '../../../vault-store/knowledge/tasks/task.js';
import { TaskIndex } from '../../../vault-store/knowledge/tasks/task-index.js';
import { queryTasks, type TaskQuery } from '../../../vault-store/knowledge/tasks/task-query.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';

const seed = {
  'work/plan.md': '# Plan\n- [ ] Draft 📅 2026-12-01 #work\n- [x] Kickoff ✅ 2026-11-01\n',
  'home/chores.md': '- [ ] Bins [due:: 2026-11-28]\n',
  'notes/none.md': '# No tasks here\n',
};

const all: TaskQuery = { status: 'all', limit: 1000 };
const lines = (k: Knowledge, query: Partial<TaskQuery> = {}) => k.tasks({ ...all, ...query }).tasks.map((t) => `${t.path}:${t.line}`);

describe('Knowledge: the task index', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let indexDir: { path: string; cleanup: () => void };
  let knowledge: Knowledge;

  beforeEach(async () => {
    ctx = await tempVault(seed);
    indexDir = tempDir('quire-index-');
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
  });
  afterEach(async () => {
    await knowledge.close();
    ctx.cleanup();
    indexDir.cleanup();
  });

  const reopen = async () => {
    await knowledge.close();
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
  };

  it('follows every commit: a page gaining, changing and losing tasks, and a deleted page', async () => {
    expect(lines(knowledge)).to.deep.equal(['home/chores.md:1', 'work/plan.md:2', 'work/plan.md:3']);
    await ctx.pages.write(testAuthor, { path: 'notes/none.md', content: '# Now some\n\n- [ ] New 📅 2026-11-27\n' });
    await ctx.pages.write(testAuthor, { path: 'work/plan.md', content: '# Plan\n- [x] Kickoff\n' });
    await ctx.pages.delete(testAuthor, { path: 'home/chores.md' });
    expect(lines(knowledge)).to.deep.equal(['notes/none.md:3', 'work/plan.md:2']);
    expect(knowledge.tasks(all).indexed_commit).to.equal(ctx.vault.head);
  });

  it('is saved with the index and restored from it, changes made before the first query included', async () => {
    const before = knowledge.tasks(all);
    await reopen();
    expect(knowledge.loadedFrom).to.equal('persisted');
    expect(knowledge.tasks(all)).to.deep.equal(before);
    // Changes while the saved section is not parsed yet: saved merged, then shown merged.
    await reopen();
    await ctx.pages.write(testAuthor, { path: 'home/chores.md', content: '- [ ] Bins\n- [ ] Dishes\n' });
    await ctx.pages.delete(testAuthor, { path: 'work/plan.md' });
    await reopen();
    expect(knowledge.loadedFrom).to.equal('persisted');
    expect(lines(knowledge)).to.deep.equal(['home/chores.md:1', 'home/chores.md:2']);
    await reopen();
    await ctx.pages.write(testAuthor, { path: 'home/chores.md', content: '- [ ] Bins 📅 2026-12-24\n' });
    expect(lines(knowledge, { dueBefore: '2026-12-25' })).to.deep.equal(['home/chores.md:1']);
    expect(lines(knowledge)).to.deep.equal(['home/chores.md:1']);
  });

  it('rebuilds an index saved before tasks were indexed (no tasks section) instead of showing none', async () => {
    await knowledge.close();
    const file = join(indexDir.path, 'knowledge', 'manifest');
    const manifest = JSON.parse(readFileSync(file, 'utf8').split(' ').slice(2).join(' '));
    delete manifest.sections.tasks;
    const json = JSON.stringify(manifest);
    writeFileSync(file, `quire-knowledge ${crc32(json)} ${json}`);
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('rebuilt');
    expect(lines(knowledge)).to.have.length(3);
  });

  it('counts tasks in the memory estimate', async () => {
    const withTasks = knowledge.memoryBytes();
    await ctx.pages.write(testAuthor, { path: 'many.md', content: Array.from({ length: 500 }, (_, i) => `- [ ] task ${i}`).join('\n') });
    expect(knowledge.memoryBytes() - withTasks).to.be.above(500 * 100);
  });
});

describe('task queries', () => {
  // Pseudo-random tasks over a few paths and days, some without a due date.
  const pages = new Map<string, Task[]>();
  let seedValue = 7;
  const next = () => (seedValue = (seedValue * 48271) % 2147483647) / 2147483647;
  for (let p = 0; p < 40; p++) {
    const tasks: Task[] = [];
    for (let line = 1; line <= 1 + Math.floor(next() * 8); line++) {
      const due = next() < 0.3 ? undefined : `2026-12-${String(1 + Math.floor(next() * 9)).padStart(2, '0')}`;
      const status = next() < 0.6 ? ' ' : next() < 0.5 ? 'x' : '-';
      tasks.push({
        line,
        level: 0,
        status,
        text: `t${p}.${line}`,
        heading: null,
        tags: next() < 0.3 ? ['Work/Acme'] : [],
        ...(due ? { due } : {}),
      });
    }
    pages.set(`f${p % 3}/p${p}.md`, tasks);
  }
  const key = (row: { due?: string; path: string; line: number }) =>
    [row.due ?? '\uffff', row.path, String(row.line).padStart(4, '0')].join(' ');

  it('pages through every match in order (due, none last; path; line) whatever the limit, as a full sort would', () => {
    const cases: [Omit<TaskQuery, 'limit'>, (t: Task) => boolean][] = [
      [{ status: 'all' }, () => true],
      [{ status: 'open', tag: 'work' }, (t) => t.status === ' ' && t.tags.length > 0],
      [{ status: 'done', dueAfter: '2026-12-03' }, (t) => t.status !== ' ' && t.due !== undefined && t.due > '2026-12-03'],
    ];
    for (const [query, wanted] of cases) {
      const expected = [...pages]
        .flatMap(([path, tasks]) => tasks.map((t) => ({ path, ...t })))
        .filter(wanted)
        .sort((a, b) => (key(a) < key(b) ? -1 : 1))
        .map(key);
      for (const limit of [1, 3, 7, 1000]) {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = queryTasks(pages, { ...query, limit, cursor });
          expect(page.total).to.equal(expected.length);
          seen.push(...page.tasks.map(key));
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        expect(seen, `${JSON.stringify(query)} limit ${limit}`).to.deep.equal(expected);
      }
    }
  });

  it('answers a range of due days from its by-day index as a scan of every task does, through page changes', () => {
    const local = new Map(pages);
    const index = new TaskIndex();
    for (const [path, tasks] of local) index.set(path, tasks);
    const ranges: Omit<TaskQuery, 'limit'>[] = [
      { status: 'all', dueAfter: '2026-12-02', dueBefore: '2026-12-06' },
      { status: 'open', dueBefore: '2026-12-04' },
      { status: 'all', dueAfter: '2026-12-08' },
      { status: 'all', dueAfter: '2026-12-05', dueBefore: '2026-12-06' },
    ];
    const same = () => {
      for (const range of ranges) expect(index.query({ ...range, limit: 5 })).to.deep.equal(queryTasks(local, { ...range, limit: 5 }));
    };
    same();
    const moved = (path: string, due: string | undefined): Task[] =>
      local.get(path)!.map((t) => {
        const { due: _, ...rest } = t;
        return due ? { ...rest, due } : rest;
      });
    for (const [path, due] of [
      ['f0/p0.md', '2026-12-05'],
      ['f1/p1.md', undefined],
      ['f2/p2.md', '2026-12-31'],
    ] as const) {
      local.set(path, moved(path, due));
      index.set(path, local.get(path)!);
      same();
    }
    local.delete('f0/p3.md');
    index.delete('f0/p3.md');
    index.set('f1/p4.md', []);
    local.delete('f1/p4.md');
    same();
  });

  it('matches due_before and due_after strictly and leaves undated tasks out of both', () => {
    const one = new Map([
      [
        'a.md',
        [
          { line: 1, level: 0, status: ' ', text: 'x', heading: null, tags: [], due: '2026-12-05' },
          { line: 2, level: 0, status: ' ', text: 'y', heading: null, tags: [] },
        ],
      ],
    ]);
    expect(queryTasks(one, { status: 'open', dueBefore: '2026-12-05', limit: 9 }).total).to.equal(0);
    expect(queryTasks(one, { status: 'open', dueBefore: '2026-12-06', limit: 9 }).total).to.equal(1);
    expect(queryTasks(one, { status: 'open', dueAfter: '2026-12-05', limit: 9 }).total).to.equal(0);
    expect(queryTasks(one, { status: 'open', dueAfter: '2026-12-04', limit: 9 }).total).to.equal(1);
  });
});
