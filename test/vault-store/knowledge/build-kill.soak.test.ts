import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Vault } from '../../../vault-store/vault.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { answers, pages } from './build-fixture.js';

describe('an index build killed mid-way (soak)', () => {
  it('leaves nothing the next start serves: it rebuilds and answers as a fresh build', async function () {
    this.timeout(60_000);
    const vault = tempDir('quire-vault-');
    const index = tempDir('quire-index-');
    const fresh = tempDir('quire-index-');
    try {
      for (const [path, text] of Object.entries(pages(1500))) writeFileSync(join(vault.path, path.replace('notes/', '')), text);
      gitIn(vault.path, 'init', '-q', '-b', 'main');
      gitIn(vault.path, 'add', '-A');
      gitIn(vault.path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'pages');
      const opened = await Vault.open(vault.path);
      const rebuilt = await Knowledge.open(opened, { indexDir: fresh.path, persistDelayMs: false, builderMinPages: Infinity });
      const expected = await answers(rebuilt);
      await rebuilt.close();
      let killedMidBuild = 0;
      for (const afterMs of [100, 600, 1200]) {
        rmSync(index.path, { recursive: true, force: true });
        if ((await buildUntilKilled(vault.path, index.path, afterMs)) === 'killed') killedMidBuild += 1;
        const manifest = join(index.path, 'knowledge', 'manifest');
        const saved = existsSync(manifest) && readFileSync(manifest, 'utf8');
        const recovered = await Knowledge.open(opened, { indexDir: index.path, persistDelayMs: false, builderMinPages: Infinity });
        try {
          const why = `killed ${afterMs} ms into the build`;
          expect(recovered.loadedFrom, why).to.equal(saved ? 'persisted' : 'rebuilt');
          expect(await answers(recovered), why).to.deep.equal(expected);
        } finally {
          await recovered.close();
        }
      }
      expect(killedMidBuild, 'kills that landed before the build was saved').to.be.greaterThan(0);
    } finally {
      [vault, index, fresh].forEach((d) => d.cleanup());
    }
  });
});

/**
 * Runs the crash-builder child from sources (a bundle leaves out the builder's file, so it
 * would build in its own thread) and SIGKILLs it `afterMs` after its build started; its
 * builder, a child of its own, stops when it notices.
 */
function buildUntilKilled(dir: string, indexDir: string, afterMs: number): Promise<'killed' | 'built'> {
  return new Promise((resolve, reject) => {
    const fixture = join(import.meta.dirname, '../../fixtures/crash-builder.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, dir, indexDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (!out) setTimeout(() => child.kill('SIGKILL'), afterMs);
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', () => resolve(out.includes('ready') ? 'built' : 'killed'));
  });
}
