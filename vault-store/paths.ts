import { QuireError } from './errors.js';

/** Byte limits follow common filesystems (255 per name) and keep URLs sane. */
export const MAX_SEGMENT_BYTES = 255;
export const MAX_PATH_BYTES = 1024;

// C0 controls, DEL and C1 controls: invisible in listings and unsafe in shells.
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/*
 * A vault is cloned onto Windows too, where git cannot check out a name Windows refuses
 * (the clone fails). Obsidian refuses the same names, so the API creates none of them.
 * Device names count with any extension ("nul.txt.md") and, like Git for Windows checks,
 * with spaces before it; Windows also takes the superscript digits ¹²³ as COM/LPT ports.
 */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³]) *(\.|$)/i;
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;

function invalid(input: string, why: string): QuireError {
  return new QuireError('INVALID_PATH', `Invalid path ${JSON.stringify(input)}: ${why}`, { path: input });
}

function checkSegments(input: string, segments: string[], hiddenAllowed = false): void {
  for (const seg of segments) {
    if (seg === '') throw invalid(input, 'empty path segment');
    if (seg === '.' || seg === '..') throw invalid(input, '"." and ".." segments are not allowed');
    if (seg.startsWith('.') && !hiddenAllowed) throw invalid(input, 'segments starting with "." are hidden and not reachable');
    if (Buffer.byteLength(seg) > MAX_SEGMENT_BYTES) throw invalid(input, `segment longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
}

function checkCharacters(input: string, path: string): void {
  if (path.startsWith('/')) throw invalid(input, 'must be relative to the vault root');
  if (path.includes('\\')) throw invalid(input, 'backslashes are not allowed; use "/"');
  if (CONTROL.test(path)) throw invalid(input, 'control characters are not allowed');
}

/** Why Windows could not check out this page path, or undefined when it can. */
export function unportableReason(path: string): string | undefined {
  const forbidden = WINDOWS_FORBIDDEN.exec(path);
  if (forbidden) return `"${forbidden[0]}" is not allowed in a name (Windows forbids < > : " | ? *)`;
  const segments = path.split('/');
  for (const [i, seg] of segments.entries()) {
    if (WINDOWS_DEVICE.test(seg)) return `"${seg}" is a device name on Windows (CON, PRN, AUX, NUL, COM1, LPT1, …), with any extension`;
    // A page's name is checked without its ".md": "x .md" is the page "x " a person typed.
    const name = i === segments.length - 1 ? seg.replace(/\.md$/, '') : seg;
    if (/[. ]$/.test(name)) return 'a name may not end in a dot or a space (Windows drops them)';
  }
  return undefined;
}

/**
 * For a path a write is about to create: the page rules plus Windows' own. Paths that
 * already exist (arriving by git or the folder) are only addressed with `normalizePagePath`,
 * so such a page stays readable, editable, movable and deletable — the way to fix its name.
 */
export function checkPortablePath(path: string): void {
  const why = unportableReason(path);
  if (why) throw invalid(path, why);
}

/**
 * Turns user input into the canonical page path: NFC, "/"-separated, ending in ".md".
 * A request without ".md" means the ".md" page. Throws INVALID_PATH with the reason.
 */
export function normalizePagePath(input: unknown): string {
  if (typeof input !== 'string' || input.length === 0) throw invalid(String(input ?? ''), 'path is empty');
  let path = input.normalize('NFC');
  checkCharacters(input, path);
  if (!path.endsWith('.md')) path += '.md';
  checkSegments(input, path.split('/'));
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw invalid(input, `path longer than ${MAX_PATH_BYTES} bytes`);
  return path;
}

/**
 * A vault file's path as the API takes it (`/vault/file/...`): the page rules without the
 * ".md" requirement, so attachments (`img/a.png`) and pages (`notes/x.md`) alike. Hidden
 * segments stay refused: `.git/`, `.obsidian/` and `.gitignore` are not files of the API.
 */
export function normalizeVaultFilePath(input: unknown): string {
  if (typeof input !== 'string' || input.length === 0) throw invalid(String(input ?? ''), 'path is empty');
  const path = input.normalize('NFC');
  checkCharacters(input, path);
  checkSegments(input, path.split('/'));
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw invalid(input, `path longer than ${MAX_PATH_BYTES} bytes`);
  return path;
}

/** True when a path in a tree is a file the API serves: a page or an attachment (no hidden segment). */
export function isVaultFilePath(path: string): boolean {
  try {
    return normalizeVaultFilePath(path) === path;
  } catch {
    return false;
  }
}

export type FileKind = 'page' | 'attachment';

/** What a vault file is: a page (`isPagePath`) or any other file, an attachment. */
export function fileKind(path: string): FileKind {
  return isPagePath(path) ? 'page' : 'attachment';
}

/**
 * A folder prefix for filters and permissions: "" means the whole vault; otherwise the
 * same rules as a page path, returned with a trailing "/" so "a/" never matches "ab/x.md".
 */
export function normalizePrefix(input: unknown): string {
  if (input === undefined || input === null || input === '' || input === '/') return '';
  if (typeof input !== 'string') throw invalid(String(input), 'prefix must be a string');
  const path = input.normalize('NFC').replace(/\/+$/, '');
  checkCharacters(input, path);
  checkSegments(input, path.split('/'));
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw invalid(input, `prefix longer than ${MAX_PATH_BYTES} bytes`);
  return `${path}/`;
}

/**
 * A working-tree file's path as the folder holds it, canonical (NFC): the rules of a prefix,
 * but hidden segments are allowed (`.gitignore`, `.obsidian/app.json` are committed from the
 * folder; they are never pages). Throws INVALID_PATH with the reason.
 */
export function normalizeFilePath(input: string): string {
  const path = input.normalize('NFC');
  checkCharacters(input, path);
  checkSegments(input, path.split('/'), true);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw invalid(input, `path longer than ${MAX_PATH_BYTES} bytes`);
  return path;
}

/**
 * True when a path in a tree is a page the API serves. A hidden file (or one with control
 * characters) arriving by git or the folder stays in git untouched but is no page: not
 * listed, read, indexed or in the change feed; the watcher reports it in vault_health as
 * skipped, with the reason. A name only Windows refuses is a page (lint flags it).
 */
export function isPagePath(path: string): boolean {
  if (!path.endsWith('.md')) return false;
  try {
    return normalizePagePath(path) === path;
  } catch {
    return false;
  }
}

export function underPrefix(path: string, prefix: string): boolean {
  return prefix === '' || path.startsWith(prefix);
}
