import { closeSync, constants, fstatSync, openSync, promises as fsp, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ignore } from 'ignore';

type IgnoreFactory = typeof import('ignore');
let loaded: IgnoreFactory | undefined;

/**
 * A matcher of the `ignore` package, which is loaded at the first call: a short CLI run (an
 * idle `quire sync` of a folder without rule files) needs none. It is CommonJS, so it is
 * `require`d: an ESM `import` starts Node's CJS export lexer (WebAssembly), about 40 ms.
 */
export function ignore(options?: Parameters<IgnoreFactory>[0]): ReturnType<IgnoreFactory> {
  loaded ??= createRequire(import.meta.url)('ignore') as IgnoreFactory;
  return loaded(options);
}

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
  /** Set once the rule files have been read. */
  private read: Promise<void> | undefined;

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

  /**
   * Rules for a caller that walks the tree itself, top-down (the sync client's scan): only
   * `info/exclude` is read here; the walk calls `addFolder` for each folder whose listing has a
   * `.gitignore`, before asking about anything in that folder, so the tree is listed once.
   */
  static forWalk(dir: string, options: IgnoreRulesOptions = {}): IgnoreRules {
    const rules = new IgnoreRules(dir, options.gitdir ?? join(dir, '.git'), options.ignoreCase ?? false);
    const { stamp, text } = readRuleFile(join(rules.gitdir, 'info', 'exclude'));
    rules.rules.excludeStamp = stamp;
    if (text !== undefined) rules.rules.exclude = rules.ruleFile(text);
    return rules;
  }

  /** Reads the `.gitignore` of `folder` ("" for the top) into the rules (see `forWalk`). */
  addFolder(folder: string): void {
    const { text } = readRuleFile(join(this.dir, folder, '.gitignore'));
    if (text !== undefined) this.rules.files.set(folder, this.ruleFile(text));
  }

  /**
   * Rules read when first needed (`ready`), not now: a vault opens without walking its
   * folders for `.gitignore` files (0.1 s at 100k pages); only watching and committing folder
   * edits ask.
   */
  static deferred(dir: string, options: IgnoreRulesOptions = {}): IgnoreRules {
    return new IgnoreRules(dir, options.gitdir ?? join(dir, '.git'), options.ignoreCase ?? false);
  }

  /** Reads the rules unless they were read already (a read that failed is tried again next time). */
  ready(): Promise<void> {
    this.read ??= this.refresh().catch((err: unknown) => {
      this.read = undefined;
      throw err;
    });
    return this.read;
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
    const { stamp, text } = readRuleFile(join(this.gitdir, 'info', 'exclude'));
    const next: RuleSet = { files: new Map(), excludeStamp: stamp, folders: new Map() };
    if (text !== undefined) next.exclude = this.ruleFile(text);
    const walk = async (folder: string): Promise<void> => {
      const entries = await fsp.readdir(join(this.dir, folder), { withFileTypes: true }).catch(() => []);
      // Opened only when listed: most folders have none, and trying each costs a short CLI run.
      if (entries.some((entry) => entry.name === '.gitignore')) {
        const { text } = readRuleFile(join(this.dir, folder, '.gitignore'));
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
    this.read ??= Promise.resolve();
  }

  /** Reads the rules again when `info/exclude` changed (no watcher sees inside `.git`); true when it did. */
  async refreshIfExcludeChanged(): Promise<boolean> {
    const { stamp } = readRuleFile(join(this.gitdir, 'info', 'exclude'), false);
    if (stamp === this.rules.excludeStamp) return false;
    await this.refresh();
    return true;
  }

  private ruleFile(text: string): RuleFile {
    return new RuleFile(text.replace(/^\uFEFF/, '').split(/\r?\n/), this.ignoreCase);
  }
}

function excluded(rules: RuleSet, path: string, isDir: boolean): boolean {
  if (rules.files.size === 0 && !rules.exclude) return false; // no rules: the common case, asked for every file
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

/**
 * A rule file's text (undefined when absent, not a regular file, or too big) and a stamp
 * telling when it changed. Synchronous: a small file read in microseconds, which a walk
 * that lists folders synchronously (the sync client's scan) can call as it goes.
 */
function readRuleFile(file: string, read = true): { stamp: string; text?: string } {
  let fd: number;
  try {
    // O_NOFOLLOW: like git since 2.32, a `.gitignore` that is a symbolic link is not read.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { stamp: '' };
  }
  try {
    const stat = fstatSync(fd);
    const stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    if (!stat.isFile() || stat.size > MAX_RULE_BYTES) return { stamp };
    return read ? { stamp, text: readFileSync(fd, 'utf8') } : { stamp };
  } finally {
    closeSync(fd);
  }
}
