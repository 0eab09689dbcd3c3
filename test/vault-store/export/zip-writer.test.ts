import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { prepareEntry } from '../../../vault-store/export/zip-entry.js';
import { ZipWriter } from '../../../vault-store/export/zip-writer.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('ZipWriter', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('quire-zip-');
  });
  afterEach(() => tmp.cleanup());

  async function write(entries: { path: string; data: Buffer; mode?: number }[]): Promise<string> {
    const file = join(tmp.path, 'out.zip');
    const out = createWriteStream(file);
    const zip = new ZipWriter(out, new Date(2024, 4, 6, 7, 8, 10));
    for (const e of entries) zip.write(await prepareEntry(e.path, e.data, e.mode ?? 0o100644));
    zip.finish();
    out.end();
    await once(out, 'finish');
    return file;
  }

  it('keeps modes and the commit time, and deflates only what shrinks', async () => {
    const text = Buffer.from('words '.repeat(500));
    const file = await write([
      { path: 'run.sh', data: Buffer.from('#!/bin/sh\necho hi\n'), mode: 0o100755 },
      { path: 'page.md', data: text },
      { path: 'photo.jpg', data: text },
    ]);
    const info = execFileSync('unzip', ['-Z', '-l', file], { encoding: 'utf8' });
    expect(info).to.match(/-rwxr-xr-x .* stor 24-May-06 07:08 run\.sh/);
    expect(info).to.match(/-rw-r--r-- .* defN 24-May-06 07:08 page\.md/);
    expect(info).to.match(/-rw-r--r-- .* stor 24-May-06 07:08 photo\.jpg/);
    expect(execFileSync('unzip', ['-p', file, 'page.md']).equals(text)).to.equal(true);
  });

  it('switches to zip64 records past 65,535 entries', async function () {
    this.timeout(60_000);
    const entries = Array.from({ length: 70_000 }, (_, i) => ({ path: `d${i % 50}/f${i}.md`, data: Buffer.from(String(i)) }));
    const file = await write(entries);
    execFileSync('unzip', ['-tq', file]);
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8', maxBuffer: 64 << 20 })
      .trim()
      .split('\n');
    expect(names).to.have.length(70_000);
    expect(execFileSync('unzip', ['-p', file, 'd9/f69959.md'], { encoding: 'utf8' })).to.equal('69959');
  });
});
