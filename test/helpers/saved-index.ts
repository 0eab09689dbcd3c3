import { Knowledge } from '../../vault-store/knowledge/knowledge.js';
import { tempDir } from './temp-dir.js';
import { indexSections } from './index-sections.js';
import { commitFiles, tempVault, testAuthor } from './temp-vault.js';

type Vault = Awaited<ReturnType<typeof tempVault>>;

/**
 * For the tests of a describe: a vault seeded with `seed` and an index folder holding its
 * first save, made afresh before each test. `open` opens the vault's knowledge from that
 * folder (warm once it holds a save), `write`, `delete` and `commit` change pages as the API
 * does; `rebuilt(read)` is what `read` answers from a build
 * from scratch at the vault's head, in a folder of its own.
 */
export function savedIndex(seed: Record<string, string>) {
  const fixture = {
    ctx: undefined as unknown as Vault,
    index: undefined as unknown as ReturnType<typeof tempDir>,
    open: () => Knowledge.open(fixture.ctx.vault, { indexDir: fixture.index.path, persistDelayMs: false }),
    /** Runs `use` on the knowledge opened from the folder, closed after (its index saved). */
    async opened<T>(use: (k: Knowledge) => Promise<T>): Promise<T> {
      const knowledge = await fixture.open();
      try {
        return await use(knowledge);
      } finally {
        await knowledge.close();
      }
    },
    /** The files the saved index's manifest names now, by section. */
    sections: () => indexSections(fixture.index.path),
    write: (path: string, content: string) => fixture.ctx.pages.write(testAuthor, { path, content }),
    delete: (path: string) => fixture.ctx.pages.delete(testAuthor, { path }),
    commit: (files: Record<string, string | null>) => commitFiles(fixture.ctx.vault, files),
    async rebuilt<T>(read: (k: Knowledge) => T | Promise<T>): Promise<T> {
      const fresh = tempDir('quire-index-');
      const built = await Knowledge.open(fixture.ctx.vault, { indexDir: fresh.path, persistDelayMs: false });
      try {
        if (built.loadedFrom !== 'rebuilt') throw new Error(`a fresh folder was ${built.loadedFrom}`);
        return await read(built);
      } finally {
        await built.close();
        fresh.cleanup();
      }
    },
  };
  beforeEach(async () => {
    fixture.ctx = await tempVault(seed);
    fixture.index = tempDir('quire-index-');
    await (await fixture.open()).close();
  });
  afterEach(() => {
    fixture.ctx.cleanup();
    fixture.index.cleanup();
  });
  return fixture;
}
