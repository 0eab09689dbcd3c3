export const GUIDE_PATH = 'GUIDE.md';
const MAX_FOLDERS = 40;
const MAX_TAGS = 60;

export interface GuideInput {
  /** The vault's own GUIDE.md, when present and visible to the caller. */
  guideText?: string;
  /** The pages the caller can see. */
  pages: readonly string[];
  tagsOf: (path: string) => readonly string[];
  /** Folders another tool keeps in sync (write prefixes of write-mode agents), with who writes them. */
  mirrors: readonly { prefix: string; agent: string }[];
  /** Markdown lines about the caller: scopes, agent mode and folders. */
  caller: readonly string[];
  /** True when the caller may only propose changes. */
  proposeOnly: boolean;
}

/** Pages per folder, counting each page in every folder above it, up to two levels deep. */
export function folderCounts(pages: readonly string[]): [string, number][] {
  const counts = new Map<string, number>([['/', 0]]);
  for (const path of pages) {
    const parts = path.split('/').slice(0, -1);
    if (parts.length === 0) counts.set('/', counts.get('/')! + 1);
    for (let depth = 1; depth <= Math.min(2, parts.length); depth++) {
      const folder = `${parts.slice(0, depth).join('/')}/`;
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
  }
  return [...counts].filter(([, n]) => n > 0).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

function tagCounts(input: GuideInput): [string, number][] {
  const counts = new Map<string, number>();
  for (const path of input.pages) for (const tag of input.tagsOf(path)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function layout(pages: readonly string[]): string[] {
  const folders = folderCounts(pages);
  const lines = folders
    .slice(0, MAX_FOLDERS)
    .map(([folder, n]) => `${'  '.repeat(Math.max(0, folder.split('/').length - 2))}- \`${folder}\` — ${n} page${n === 1 ? '' : 's'}`);
  if (folders.length > MAX_FOLDERS) lines.push(`- … ${folders.length - MAX_FOLDERS} more folders`);
  return lines;
}

const TOOL_ADVICE = [
  '- Find before you read: `search` (phrases in quotes, `prefix*`, `prefix`/`tag` filters), then `read_page` the best hits; `backlinks` and `graph` show what links where.',
  '- `context_pack` gathers the pages most relevant to a topic within a token budget, each labelled with its path and hash.',
  '- Every page has a `hash`. Edit with `write_page`/`patch_page`/`append_to_page` passing that hash as `base_hash`: if someone changed the page since you read it you get `CONFLICT` with the current hash; read again and redo the edit instead of overwriting.',
  '- Put quick notes, clippings and ideas in the inbox with `capture` rather than inventing a place for them.',
  '- Link pages with `[[Page name]]` wiki links, as the rest of the vault does.',
];

/**
 * The guide for an assistant working in this vault: the owner's GUIDE.md first (their
 * conventions win), then what Quire knows: layout, tags, conventions, the caller's rights
 * and how to use the tools well. Deterministic for the same vault state and caller.
 */
export function buildGuide(input: GuideInput): string {
  const parts: string[] = [];
  if (input.guideText?.trim()) parts.push(input.guideText.trim(), '---');
  parts.push('# About this vault (generated)', '', `${input.pages.length} pages you can see. Folders:`, '', ...layout(input.pages), '');
  const tags = tagCounts(input);
  parts.push(
    '## Tags',
    '',
    tags.length
      ? tags
          .slice(0, MAX_TAGS)
          .map(([tag, n]) => `#${tag} (${n})`)
          .join(', ')
      : 'No tags yet.',
    '',
  );
  parts.push(
    '## Conventions',
    '',
    '- `capture/` is the inbox: the `capture` tool files notes as `capture/YYYY-MM-DD-<slug>.md` with title, source and time in the frontmatter.',
  );
  for (const m of input.mirrors)
    parts.push(`- \`${m.prefix}\` mirrors another tool and is written by agent \`${m.agent}\`: edits there may be overwritten.`);
  parts.push('', '## You', '', ...input.caller, '', '## Using the tools well', '', ...TOOL_ADVICE);
  if (input.proposeOnly)
    parts.push(
      '- You cannot write directly: send changes with `create_proposal` (whole new content per page, with `base_hash`) and the owner will review the diff.',
    );
  return `${parts.join('\n')}\n`;
}

/** A short form for the head of a context pack: the owner's guide if any, else the layout's top folders. */
export function guideSummary(input: Pick<GuideInput, 'guideText' | 'pages'>): string {
  if (input.guideText?.trim()) return input.guideText.trim();
  return [
    `${input.pages.length} pages. Top folders:`,
    ...layout(input.pages)
      .filter((l) => !l.startsWith(' '))
      .slice(0, 12),
  ].join('\n');
}
