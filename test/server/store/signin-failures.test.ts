import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expect } from 'chai';
import { SCHEMA_STEPS } from '../../../server/store/sqlite/schema.js';
import { DATABASE_FILE, openSqliteStore } from '../../../server/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/temp-dir.js';

const WINDOW_MS = 15 * 60_000;

describe('sign-in failure counters in the store', () => {
  const dir = tempDir('quire-failures-');
  after(() => dir.cleanup());
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('counts as one across two connections to the same file (the server and the CLI, or two servers)', async () => {
    const [a, b] = [openSqliteStore(dir.path), openSqliteStore(dir.path)];
    try {
      const counts = [];
      for (let i = 0; i < 4; i++) counts.push((await (i % 2 ? b : a).signinFailures.hit('198.51.100.1', now + i, WINDOW_MS)).hits);
      expect(counts).to.deep.equal([1, 2, 3, 4]);
      await b.signinFailures.undo('198.51.100.1', now + 5);
      expect(await a.signinFailures.hit('198.51.100.1', now + 6, WINDOW_MS)).to.deep.equal({ hits: 4, resets_at: now + WINDOW_MS });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('starts a new window once the old one ends, and a reset forgets the key at once', async () => {
    const store = openSqliteStore(dir.path);
    try {
      await store.signinFailures.hit('k', now, WINDOW_MS);
      expect(await store.signinFailures.hit('k', now + WINDOW_MS - 1, WINDOW_MS)).to.deep.equal({ hits: 2, resets_at: now + WINDOW_MS });
      // An undo after the window ended takes nothing from the next one.
      await store.signinFailures.undo('k', now + WINDOW_MS);
      expect(await store.signinFailures.hit('k', now + WINDOW_MS, WINDOW_MS)).to.deep.equal({ hits: 1, resets_at: now + 2 * WINDOW_MS });
      await store.signinFailures.reset('k');
      expect((await store.signinFailures.hit('k', now + WINDOW_MS + 1, WINDOW_MS)).hits).to.equal(1);
    } finally {
      await store.close();
    }
  });

  it('has the purge delete ended windows only', async () => {
    const store = openSqliteStore(dir.path);
    try {
      await store.signinFailures.hit('ended', now, 1);
      await store.signinFailures.hit('live', now, WINDOW_MS);
      await store.purgeExpired(now + 1);
    } finally {
      await store.close();
    }
    const db = new Database(join(dir.path, DATABASE_FILE), { readonly: true });
    try {
      const keys = (db.prepare('SELECT key FROM signin_failures ORDER BY key').all() as { key: string }[]).map((row) => row.key);
      expect(keys).to.include('live').and.not.include('ended');
    } finally {
      db.close();
    }
  });

  it('adds the table to a file of schema version 1, keeping its rows', async () => {
    const old = tempDir('quire-schema-v1-');
    try {
      const db = new Database(join(old.path, DATABASE_FILE));
      db.exec(SCHEMA_STEPS[0]!);
      db.prepare("INSERT INTO users (name, plan, created_at) VALUES ('ann', 'personal', '2026-01-01T00:00:00Z')").run();
      db.pragma('user_version = 1');
      db.close();
      const store = openSqliteStore(old.path);
      try {
        expect(await store.users.get('ann')).to.include({ name: 'ann' });
        expect((await store.signinFailures.hit('k', now, WINDOW_MS)).hits).to.equal(1);
      } finally {
        await store.close();
      }
    } finally {
      old.cleanup();
    }
  });
});
