import { withFrontmatter } from './markdown/frontmatter.js';
import type { Pages } from './pages.js';
import type { Author } from './vault.js';

export const CAPTURE_FOLDER = 'capture';

/** "Meeting notes: Q3!" → "meeting-notes-q3"; letters of any script survive. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return [...slug].slice(0, 60).join('').replace(/-+$/, '') || 'capture';
}

export interface CaptureInput {
  title: string;
  source?: string;
  content: string;
}

/**
 * Files a capture as `capture/YYYY-MM-DD-<slug>.md`, with a numeric suffix when taken.
 * The name is chosen inside the write queue, so two identical captures never collide.
 */
export async function capture(pages: Pages, author: Author, input: CaptureInput, now: Date) {
  const day = now.toISOString().slice(0, 10);
  const base = `${CAPTURE_FOLDER}/${day}-${slugify(input.title)}`;
  const data: Record<string, string> = { title: input.title };
  if (input.source) data.source = input.source;
  data.captured_at = now.toISOString();
  const content = withFrontmatter(data, input.content.endsWith('\n') ? input.content : `${input.content}\n`);
  const vault = pages.vault;
  let chosen = '';
  return vault.exclusive(async () => {
    for (let n = 1; ; n++) {
      chosen = n === 1 ? `${base}.md` : `${base}-${n}.md`;
      if (!vault.manifest.get(chosen) && !vault.manifest.caseTwin(chosen)) break;
    }
    const event = await vault.commitChanges(author, `Capture ${chosen}`, [{ path: chosen, content: new TextEncoder().encode(content) }]);
    return { page: await pages.read(chosen), commit: event!.commit };
  });
}
