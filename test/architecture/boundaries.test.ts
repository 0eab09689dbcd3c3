import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cycles, importGraph, ROOT } from './import-graph.js';

interface Rule {
  rule: string;
  applies: (file: string) => boolean;
  refuses: (target: string) => boolean;
}

const inside = (folder: string) => (path: string) => path.startsWith(folder);

/** The room rules of ARCHITECTURE.md ("Boundaries"), one line each. */
const RULES: Rule[] = [
  {
    rule: 'vault-store/ imports neither server/ nor scripts/',
    applies: inside('vault-store/'),
    refuses: (t) => inside('server/')(t) || inside('scripts/')(t),
  },
  { rule: 'server/ does not import scripts/', applies: inside('server/'), refuses: inside('scripts/') },
  {
    rule: 'server/ reaches git, history, export, the working tree and the manifest only through vault-store/workspace.ts',
    applies: inside('server/'),
    refuses: (t) =>
      ['git/', 'history/', 'export/', 'worktree/'].some((f) => t.startsWith(`vault-store/${f}`)) || t === 'vault-store/manifest.ts',
  },
  {
    rule: 'vault-store/git/ imports nothing else of vault-store but atomic-file.ts, errors.ts and slices.ts',
    applies: inside('vault-store/git/'),
    refuses: (t) =>
      inside('vault-store/')(t) &&
      !inside('vault-store/git/')(t) &&
      !['vault-store/atomic-file.ts', 'vault-store/errors.ts', 'vault-store/slices.ts'].includes(t),
  },
  {
    rule: 'vault-store/markdown/ imports nothing else of vault-store but errors.ts',
    applies: inside('vault-store/markdown/'),
    refuses: (t) => inside('vault-store/')(t) && !inside('vault-store/markdown/')(t) && t !== 'vault-store/errors.ts',
  },
  { rule: 'server/rest/ does not import server/mcp/', applies: inside('server/rest/'), refuses: inside('server/mcp/') },
  {
    rule: 'server/mcp/ does not import server/rest/ (what both need of HTTP is in server/http/)',
    applies: inside('server/mcp/'),
    refuses: inside('server/rest/'),
  },
  {
    rule: 'server/web/ imports nothing else of server/ but http/ (what browser pages share holds no state)',
    applies: inside('server/web/'),
    refuses: (t) => inside('server/')(t) && !inside('server/web/')(t) && !inside('server/http/')(t),
  },
  {
    rule: 'server/agents/ does not import server/ops/ (the gate that applies agent rights lives in ops/)',
    applies: inside('server/agents/'),
    refuses: inside('server/ops/'),
  },
  {
    rule: 'only vault-store/git/ imports isomorphic-git (one git reader)',
    applies: (f) => !inside('vault-store/git/')(f),
    refuses: (t) => t === 'isomorphic-git',
  },
  {
    rule: 'only the watcher imports vault-store/watcher/ within vault-store (the write path does not)',
    applies: (f) => inside('vault-store/')(f) && !inside('vault-store/watcher/')(f),
    refuses: inside('vault-store/watcher/'),
  },
];

describe('import boundaries', () => {
  const graph = importGraph(['vault-store', 'server', 'scripts']);

  it('reads the import graph of every folder', () => {
    for (const folder of ['vault-store/git/', 'vault-store/knowledge/', 'server/ops/', 'scripts/commands/']) {
      expect([...graph.keys()].some(inside(folder)), folder).to.equal(true);
    }
  });

  it('every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => t.endsWith('.ts') && !existsSync(join(ROOT, t))).map((t) => `${file} → ${t}`),
    );
    expect(missing).to.deep.equal([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph).map((chain) => chain.join(' → '))).to.deep.equal([]);
  });

  for (const { rule, applies, refuses } of RULES) {
    it(rule, () => {
      const offending = [...graph]
        .filter(([file]) => applies(file))
        .flatMap(([file, targets]) => targets.filter(refuses).map((t) => `${file} → ${t}`));
      expect(offending).to.deep.equal([]);
    });
  }
});
