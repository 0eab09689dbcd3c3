import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where test folders go: a file system in memory when there is one (Linux's /dev/shm), else
 * the OS temp folder. A vault fsyncs every commit; on a disk each fsync waits for the device,
 * which made the write-heavy files two to three times slower and tested nothing more (the
 * crash tests kill processes, never the machine). QUIRE_TEST_TMPDIR picks another folder.
 */
const BASE = process.env.QUIRE_TEST_TMPDIR ?? (writable('/dev/shm') ? '/dev/shm' : tmpdir());

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A fresh temp folder per test; removed in afterEach by the returned cleanup. */
export function tempDir(prefix = 'quire-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(BASE, prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
