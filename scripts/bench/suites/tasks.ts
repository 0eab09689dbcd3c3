/**
 * Tasks (`npm run bench -- tasks --n 100000`): the generated vault (seed 42; 10k pages unless
 * `--n`) with task lines added deterministically, since the generator writes none: 30% of
 * pages get 1–6 tasks under a "## Tasks" heading (70% open, 20% done, 5% in progress, 5%
 * cancelled; half with a due date within ±180 days of 2026-11-26, a tenth of those as Dataview
 * fields; some nested, some tagged). In-process, no git: what it costs to build the task index
 * (the scanner's list-item check on every line, reading each task, filing it) beside parsing
 * the pages, its heap, its saved section and the restore of it, and queries' medians.
 * `--tasks-only` leaves the generated text out (pages of task lines alone): the same tasks
 * and queries in seconds, without the build figures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../../../vault-store/git/hash-blob.js';
import { pageMeta } from '../../../vault-store/knowledge/page-meta.js';
import { pageTasks } from '../../../vault-store/knowledge/tasks/task.js';
import { TaskIndex } from '../../../vault-store/knowledge/tasks/task-index.js';
import type { TaskQuery } from '../../../vault-store/knowledge/tasks/task-query.js';
import { parsePage } from '../../../vault-store/page.js';
import { listItem } from '../../../vault-store/markdown/list-items.js';
import { benchVault, round, summarize } from '../fixture.js';
import { savedCopy } from '../saved-copy.js';

const TODAY = Date.UTC(2026, 10, 26);
const DAY = 86_400_000;
const day = (offset: number) => new Date(TODAY + offset * DAY).toISOString().slice(0, 10);

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The page with its task lines, decided by the page's number alone. */
function withTasks(text: string, page: number, words: string[]): string {
  const rnd = mulberry32(page + 1);
  if (rnd() >= 0.3) return text;
  const lines = ['', '## Tasks'];
  const count = 1 + Math.floor(rnd() * 6);
  for (let i = 0; i < count; i++) {
    const r = rnd();
    const status = r < 0.7 ? ' ' : r < 0.9 ? 'x' : r < 0.95 ? '/' : '-';
    const indent = i > 0 && rnd() < 0.2 ? '  ' : '';
    let line = `${indent}- [${status}] ${words[Math.floor(rnd() * words.length)]} ${words[Math.floor(rnd() * words.length)]} the ${words[Math.floor(rnd() * words.length)]}`;
    if (rnd() < 0.2) line += rnd() < 0.5 ? ' #work' : ' #home/garden';
    if (rnd() < 0.5) {
      const due = day(Math.floor(rnd() * 361) - 180);
      line += rnd() < 0.1 ? ` [due:: ${due}]` : ` 📅 ${due}`;
    }
    if (status === 'x') line += ` ✅ ${day(-Math.floor(rnd() * 30))}`;
    lines.push(line);
  }
  return `${text.replace(/\n*$/, '\n')}${lines.join('\n')}\n`;
}

/** Heap and typed-array memory after a collection (npm run bench exposes gc). */
function held(): number {
  global.gc?.();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

function time(run: () => unknown, n: number): { p50: number; p99: number; n: number } {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    run();
    samples.push(performance.now() - t0);
  }
  return summarize(samples);
}

export default async function (options: string[]): Promise<Record<string, unknown>> {
  const at = options.indexOf('--n');
  const n = at >= 0 ? Number(options[at + 1]) : 10_000;
  const { source, manifest } = benchVault(n);
  const words = manifest.vocabHead.slice(0, 2000);
  // --tasks-only: pages of their task lines alone, for query medians without a minute of parsing.
  const tasksOnly = options.includes('--tasks-only');
  const texts = manifest.paths.map((path, i) =>
    Buffer.from(withTasks(tasksOnly ? '' : readFileSync(join(source, path), 'utf8'), i, words)),
  );

  // Parsing as a build does, filing each page's tasks: the index's heap is what stays.
  const strings = texts.map((t) => t.toString('utf8'));
  const before = held();
  const index = new TaskIndex();
  let pagesWithTasks = 0;
  let t0 = performance.now();
  manifest.paths.forEach((path, i) => {
    const { tasks } = pageMeta(path, hashBlob(texts[i]), texts[i]);
    pagesWithTasks += tasks.length > 0 ? 1 : 0;
    index.set(path, tasks);
  });
  const pageMetaMs = performance.now() - t0;
  const heapBytes = held() - before;

  // What of that the tasks add: the scanner's list-item check on every line, reading the tasks, filing them.
  t0 = performance.now();
  for (const text of strings) for (const line of text.split('\n')) listItem(line);
  const listCheckMs = performance.now() - t0;
  const scans = manifest.paths.map((path, i) => parsePage(path, strings[i]));
  t0 = performance.now();
  const read = scans.map((scan, i) => pageTasks(strings[i], { headings: scan.headings, tags: scan.tagSpans }, scan.tasks));
  const readTasksMs = performance.now() - t0;
  scans.length = 0;
  t0 = performance.now();
  const again = new TaskIndex();
  manifest.paths.forEach((path, i) => again.set(path, read[i]));
  const fileMs = performance.now() - t0;
  const tasks = index.query({ status: 'all', limit: 1 }).total;

  const { section, bytes: savedBytes } = await savedCopy(index.sections(manifest.paths.length).sections.tasks);
  let restored: TaskIndex | undefined;
  const restoreMs = time(() => (restored = new TaskIndex({ whole: section })).query({ status: 'all', limit: 1 }), 5);
  const consistent =
    JSON.stringify(restored!.query({ status: 'all', limit: 1000 })) === JSON.stringify(index.query({ status: 'all', limit: 1000 }));

  const queries: Record<string, TaskQuery> = {
    open_due_this_week: { status: 'open', dueAfter: day(-4), dueBefore: day(4), limit: 100 },
    overdue: { status: 'open', dueBefore: day(0), limit: 100 },
    all_open_first_100: { status: 'open', limit: 100 },
    all_open_1000: { status: 'open', limit: 1000 },
    tag_work_open: { status: 'open', tag: 'work', limit: 100 },
    text_open: { status: 'open', text: words[7], limit: 100 },
    folder_all: { status: 'all', prefix: manifest.paths[0].slice(0, manifest.paths[0].indexOf('/') + 1), limit: 100 },
  };
  const results: Record<string, unknown> = {};
  for (const [name, query] of Object.entries(queries)) {
    results[name] = { ms: time(() => index.query(query), 30), total: index.query(query).total };
  }

  // A page's tasks replaced, as a commit does.
  let k = 0;
  const updateMs = time(() => {
    const i = (k++ * 7919) % manifest.paths.length;
    const scan = parsePage(manifest.paths[i], strings[i]);
    index.set(manifest.paths[i], pageTasks(strings[i], { headings: scan.headings, tags: scan.tagSpans }, scan.tasks));
  }, 200);

  return {
    pages: n,
    pages_with_tasks: pagesWithTasks,
    tasks,
    page_meta_all_ms: round(pageMetaMs),
    build_share: tasksOnly
      ? 'not measured: --tasks-only'
      : {
          list_item_check_every_line_ms: round(listCheckMs),
          read_tasks_ms: round(readTasksMs),
          file_in_index_ms: round(fileMs),
          share_of_page_meta: round((listCheckMs + readTasksMs + fileMs) / pageMetaMs, 3),
        },
    heap_mb: round(heapBytes / 2 ** 20),
    heap_bytes_per_page: Math.round(heapBytes / n),
    estimate_mb: round(index.memoryBytes() / 2 ** 20),
    section_mb: round(savedBytes / 2 ** 20),
    restore_and_first_query_ms: restoreMs,
    restore_consistent: consistent,
    queries: results,
    replace_page_tasks_ms: updateMs,
  };
}
