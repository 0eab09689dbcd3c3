import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { chunksOf, isStream, madeSection, SavedSection, type SectionValue } from '../../vault-store/knowledge/persist.js';

/**
 * A section as a save makes it, written to a temp file and handed back as a warm open hands
 * it (unread until asked for), with its bytes and the time it took to make them.
 */
export async function savedCopy(value: SectionValue): Promise<{ section: SavedSection; bytes: number; ms: number }> {
  const started = performance.now();
  const made = await madeSection(value);
  const chunks: Uint8Array[] = [];
  if (isStream(made)) for await (const chunk of made) chunks.push(chunk);
  else chunks.push(...chunksOf(made));
  const bytes = Buffer.concat(chunks);
  const ms = performance.now() - started;
  const file = join(mkdtempSync(join(tmpdir(), 'quire-section-')), 'section');
  writeFileSync(file, bytes);
  const section = new SavedSection(file, bytes.byteLength, crc32(bytes), () => {
    throw new Error(`${file} failed its check`);
  });
  return { section, bytes: bytes.byteLength, ms };
}
