import { constants, promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ignore } from 'ignore';

/**
 * `ignore` is CommonJS: an ESM `import` of it starts Node's CJS export lexer (WebAssembly),
 * about 40 ms of a short CLI run such as an idle `quire sync`; `require` skips that.
 */
export const ignore = createRequire(import.meta.url)('ignore') as typeof import('ignore');

/**
 * The `.gitignore` a new vault starts with (committed, so clones share it). Only files that
 * change on every click or are litter from one machine: Obsidian's settings (`app.json`,
 * plugins, themes) stay tracked, since people sync them through the vault.
 */
export const DEFAULT_GITIGNORE = `# Files Quire never commits from this folder (git's syntax: https://git-scm.com/docs/gitignore).
# Obsidian's open panes and tabs, rewritten on every click (its settings stay tracked)
.obsidian/workspace*.json
# Obsidian's trash ("Move to Obsidian trash")
.trash/
# Folder metadata of macOS and Windows
.DS_Store
Thumbs.db
desktop.ini
`;

/** Largest rule file read (git itself reads any size; a bigger one is a mistake or an attack). */
const MAX_RULE_BYTES = 1 << 20;

/** A `.gitignore` (or `info/exclude`): its patterns apply to paths relative to `base`. */
class RuleFile {
  private readonly matcher: Ignore;
  /** One matcher per pattern, made only when a path's own verdict is hidden by a parent (see `verdict`). */
  private lineMatchers?: { negative: boolean; matcher: Ignore }[];

  constructor(
    private readonly lines: string[],
    private readonly ignoreCase: boolean,
  ) {
    this.matcher = ignore({ ignorecase: ignoreCase }).add(lines);
  }

  /**
   * This file's own say on `rel` (relative to its folder, "/"-terminated for a folder): true
   * excluded, false re-included by a `!` pattern, undefined when no pattern matches. As in
   * git, the last matching line decides, and it is matched against this path only; `ignore`
   * also lets a folder excluded by this file exclude what is under it, which is right unless
   * a deeper `.gitignore` re-included that folder, so then the lines are asked one by one.
   */
  verdict(rel: string): boolean | undefined {
    const parent = parentFolderOf(rel);
    if (parent === '' || !this.matcher.ignores(parent)) {
      const result = this.matcher.test(rel);
      return result.ignored ? true : result.unignored ? false : undefined;
    }
    this.lineMatchers ??= this.lines
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
      .map((line) => {
        const negative = line.startsWith('!');
        // A lone negative pattern excludes nothing, so `unignored` is exactly "this line matches the path itself".
        return { negative, matcher: ignore({ ignorecase: this.ignoreCase }).add(negative ? line : `!${line}`) };
      });
    for (let i = this.lineMatchers.length - 1; i >= 0; i--) {
      const { negative, matcher } = this.lineMatchers[i];
      if (matcher.test(rel).unignored) return !negative;
    }
    return undefined;
  }
}

/** "a/b/" for "a/b/c" and "a/b/c/"; "" at the top. */
function parentFolderOf(rel: string): string {
  const end = rel.endsWith('/') ? rel.length - 1 : rel.length;
  return rel.slice(0, rel.lastIndexOf('/', end - 1) + 1);
}

/** True for a path whose rules `IgnoreRules` reads: a `.gitignore` at any level. */
export function isIgnoreFile(path: string): boolean {
  return path === '.gitignore' || path.endsWith('/.gitignore');
}

export interface IgnoreRulesOptions {
  /** The repository folder; `<dir>/.git` by default. Its `info/exclude` is read. */
  gitdir?: string;
  /** Match patterns ignoring case, as git does with `core.ignorecase`; false by default. */
  ignoreCase?: boolean;
}

interface RuleSet {
  /** Folder ("" for the top, else "a/b") → the rules of its `.gitignore`. */
  files: Map<string, RuleFile>;
  exclude?: RuleFile;
  excludeStamp: string;
  /** Verdicts on folders, asked again for every file beneath them. */
  folders: Map<string, boolean>;
}

/**
 * What git ignores in one working tree: `.git/info/exclude` and every `.gitignore`, with
 * git's precedence. A path is excluded when one of its folders is (nothing beneath an
 * excluded folder can be re-included); otherwise the deepest `.gitignore` with a matching
 * pattern decides (its last matching line; `!` re-includes), then `info/exclude`.
 * Matching is the `ignore` package's, one matcher per rule file, on paths relative to it.
 * Tracked files are not this class's business: the caller keeps following them.
 */
export class IgnoreRules {
  private rules: RuleSet = { files: new Map(), excludeStamp: '', folders: new Map() };

  private constructor(
    readonly dir: string,
    private readonly gitdir: string,
    private readonly ignoreCase: boolean,
  ) {}

  static async load(dir: string, options: IgnoreRulesOptions = {}): Promise<IgnoreRules> {
    const rules = new IgnoreRules(dir, options.gitdir ?? join(dir, '.git'), options.ignoreCase ?? false);
    await rules.refresh();
    return rules;
  }

  /** Whether git would ignore `path` (vault-relative, "/"-separated), a folder when `isDir`. */
  ignores(path: string, isDir = false): boolean {
    return excluded(this.rules, path, isDir);
  }

  /**
   * Reads every rule file again: after a `.gitignore` changed, or to be sure. Folders
   * excluded are not searched for `.gitignore` files (git does not read them either), and
   * neither are `.git` folders nor symbolic links.
   */
  async refresh(): Promise<void> {
    const { stamp, text } = await readRuleFile(join(this.gitdir, 'info', 'exclude'));
    const next: RuleSet = { files: new Map(), excludeStamp: stamp, folders: new Map() };
    if (text !== undefined) next.exclude = this.ruleFile(text);
    const walk = async (folder: string): Promise<void> => {
      const entries = await fsp.readdir(join(this.dir, folder), { withFileTypes: true }).catch(() => []);
      // Opened only when listed: most folders have none, and trying each costs a short CLI run.
      if (entries.some((entry) => entry.name === '.gitignore')) {
        const { text } = await readRuleFile(join(this.dir, folder, '.gitignore'));
        if (text !== undefined) next.files.set(folder, this.ruleFile(text));
      }
      const below: Promise<void>[] = [];
      for (const entry of entries) {
        if (!entry.isDirectory() || entry.name === '.git') continue;
        const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (!excluded(next, path, true)) below.push(walk(path));
      }
      await Promise.all(below);
    };
    await walk('');
    this.rules = next;
  }

  /** Reads the rules again when `info/exclude` changed (no watcher sees inside `.git`); true when it did. */
  async refreshIfExcludeChanged(): Promise<boolean> {
    const { stamp } = await readRuleFile(join(this.gitdir, 'info', 'exclude'), false);
    if (stamp === this.rules.excludeStamp) return false;
    await this.refresh();
    return true;
  }

  private ruleFile(text: string): RuleFile {
    return new RuleFile(text.replace(/^\uFEFF/, '').split(/\r?\n/), this.ignoreCase);
  }
}

function excluded(rules: RuleSet, path: string, isDir: boolean): boolean {
  const slash = path.lastIndexOf('/');
  if (slash >= 0 && folderExcluded(rules, path.slice(0, slash))) return true;
  return ownVerdict(rules, path, isDir);
}

function folderExcluded(rules: RuleSet, folder: string): boolean {
  let known = rules.folders.get(folder);
  if (known === undefined) {
    known = excluded(rules, folder, true);
    rules.folders.set(folder, known);
  }
  return known;
}

/** The verdict of the rule files on `path` itself: deepest `.gitignore` first, `info/exclude` last. */
function ownVerdict(rules: RuleSet, path: string, isDir: boolean): boolean {
  const suffix = isDir ? '/' : '';
  for (let end = path.lastIndexOf('/'); ; end = path.lastIndexOf('/', end - 1)) {
    const folder = end < 0 ? '' : path.slice(0, end);
    const verdict = rules.files.get(folder)?.verdict(path.slice(end + 1) + suffix);
    if (verdict !== undefined) return verdict;
    if (end < 0) break;
  }
  return rules.exclude?.verdict(path + suffix) ?? false;
}

/** A rule file's text (undefined when absent, not a regular file, or too big) and a stamp telling when it changed. */
async function readRuleFile(file: string, read = true): Promise<{ stamp: string; text?: string }> {
  let handle: fsp.FileHandle;
  try {
    // O_NOFOLLOW: like git since 2.32, a `.gitignore` that is a symbolic link is not read.
    handle = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { stamp: '' };
  }
  try {
    const stat = await handle.stat();
    const stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    if (!stat.isFile() || stat.size > MAX_RULE_BYTES) return { stamp };
    return read ? { stamp, text: await handle.readFile('utf8') } : { stamp };
  } finally {
    await handle.close();
  }
}
