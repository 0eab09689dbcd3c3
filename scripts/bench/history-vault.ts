import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, benchVault } from './fixture.js';

/** Commits after the import: the history the `history` suite measures. */
export const COMMITS = 5_200;
/** Changed every 20 commits up to commit 1,200: 60 entries, the last 4,000 commits before head. */
export const OLD_PAGE = 'bench/old-page.md';
/** A 20 KB page written at commit 2 and rewritten in places at commit 5,100. */
export const BIG_PAGE = 'bench/big-page.md';
const START = Date.UTC(2025, 0, 1) / 1000;
const AGENTS = ['gardener', 'scribe'];

function bigPage(version: number): string {
  const lines: string[] = ['---', `status: ${version === 1 ? 'draft' : 'done'}`, '---', '# Big page', ''];
  for (let i = 0; lines.join('\n').length < 20_000; i++) {
    const changed = version === 2 && i % 40 === 7;
    lines.push(`Line ${i}: ${changed ? 'rewritten in the second version' : 'some steady text that stays the same'} here.`);
  }
  return `${lines.join('\n')}\n`;
}

/** One `git fast-import` commit: the author line, message with Quire trailers, and file commands. */
function commit(i: number, files: string[]): string {
  const agent = i % 5 === 0 ? AGENTS[i % 2] : undefined;
  const trailers = [`Quire-Actor: key:${agent ? `${agent}-key` : 'laptop'}`, `Quire-Credential: k${agent ?? 'laptop'}`];
  if (agent) trailers.push(`Quire-Agent: ${agent}`);
  const message = `Bench commit ${i}\n\n${trailers.join('\n')}\n`;
  const when = `${START + i * 600} +0000`;
  return [
    'commit refs/heads/main',
    `author Bench <bench@quire.invalid> ${when}`,
    `committer Bench <bench@quire.invalid> ${when}`,
    `data ${Buffer.byteLength(message)}\n${message}`,
    // Without it the first commit would start from an empty tree, not the import.
    ...(i === 1 ? ['from refs/heads/main^0'] : []),
    ...files,
    '',
  ].join('\n');
}

/** Paths hold spaces: fast-import takes them C-quoted, which JSON's quoting is for these names. */
const q = (path: string) => JSON.stringify(path);
const modify = (path: string, text: string) => `M 100644 inline ${q(path)}\ndata ${Buffer.byteLength(text)}\n${text}`;

/**
 * The 10k-page vault with 5,200 commits of history after its import: one to three pages
 * changed per commit, a rename every 50 commits, a delete every 97, a fifth of the commits
 * by agents. Written with `git fast-import` (seconds, where 5,200 server writes take many
 * minutes), then checked out; made once under bench-data/.
 */
export function historyBenchVault(): { dir: string; paths: string[] } {
  const { source, manifest } = benchVault();
  const dir = join(BENCH_DIR, 'history-10000');
  const paths = manifest.paths.filter((p) => !p.startsWith('bench/'));
  // The folder itself, not a link to a shared cache: suites copy it (see benchVault).
  if (existsSync(join(dir, '.git', 'quire-bench-ready'))) return { dir: realpathSync(dir), paths };
  rmSync(dir, { recursive: true, force: true });
  cpSync(source, dir, { recursive: true });
  const git = (args: string[], input?: string) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@x', ...args], {
      cwd: dir,
      input,
      stdio: ['pipe', 'ignore', 'inherit'],
    });
  git(['init', '-q', '-b', 'main']);
  git(['add', '-A']);
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@x', 'commit', '-q', '-m', 'Import'], {
    cwd: dir,
    env: { ...process.env, GIT_AUTHOR_DATE: `${START} +0000`, GIT_COMMITTER_DATE: `${START} +0000` },
  });
  const live = [...paths];
  const stream: string[] = [];
  for (let i = 1; i <= COMMITS; i++) {
    const files: string[] = [];
    if (i <= 1_200 && i % 20 === 1) files.push(modify(OLD_PAGE, `# Old page\n\nVersion ${i}.\n`));
    if (i === 2 || i === 5_100) files.push(modify(BIG_PAGE, bigPage(i === 2 ? 1 : 2)));
    for (let k = 0; k < 1 + (i % 3); k++) {
      const path = live[(i * 7_919 + k * 104_729) % live.length];
      files.push(modify(path, `# Edited ${i}.${k}\n\nBody of edit ${i} (${k}).\n`));
    }
    if (i % 50 === 0) {
      const at = (i * 31) % live.length;
      const to = `renamed/${i}.md`;
      files.push(`R ${q(live[at])} ${q(to)}`);
      live[at] = to;
    } else if (i % 97 === 0) {
      files.push(`D ${q(live.splice((i * 13) % live.length, 1)[0])}`);
    }
    stream.push(commit(i, files));
  }
  git(['fast-import', '--quiet'], stream.join('\n'));
  git(['reset', '-q', '--hard']);
  writeFileSync(join(dir, '.git', 'quire-bench-ready'), '');
  return { dir, paths: live };
}
