import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Per section of the saved search index in `indexDir`, the path of the file its manifest names. */
export function indexSections(indexDir: string): Record<string, string> {
  const folder = join(indexDir, 'knowledge');
  const text = readFileSync(join(folder, 'manifest'), 'utf8');
  const { sections } = JSON.parse(text.slice(text.indexOf('{'))) as { sections: Record<string, { file: string }> };
  return Object.fromEntries(Object.entries(sections).map(([name, { file }]) => [name, join(folder, file)]));
}
