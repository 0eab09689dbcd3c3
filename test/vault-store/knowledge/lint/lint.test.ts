import { expect } from 'chai';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LinkGraph } from '../../../../vault-store/knowledge/graph/link-graph.js';
import { lint, LINT_RULES } from '../../../../vault-store/knowledge/lint/lint.js';
import { pageMeta, type PageMeta } from '../../../../vault-store/knowledge/page-meta.js';
import { Vault } from '../../../../vault-store/vault.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { gitIn } from '../../../helpers/temp-vault.js';

const FIXTURE = resolve(import.meta.dirname, '../../../fixtures/lint-vault');
const MAX_PAGE_BYTES = 1024;

/**
 * The fixture vault, committed with system git as an Obsidian user would, plus two paths
 * equal but for case: the API refuses those, so only an external edit can create them
 * (and a fixture folder holding them could not be checked out on macOS).
 */
async function fixtureVault(dir: string): Promise<Map<string, PageMeta>> {
  cpSync(FIXTURE, dir, { recursive: true });
  for (const folder of ['notes', 'Notes']) {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, 'Topic.md'), 'A topic about [[Home]].\n');
  }
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'add', '-A');
  gitIn(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'fixture');
  const vault = await Vault.open(dir);
  const metas = new Map<string, PageMeta>();
  for (const path of vault.manifest.pages()) {
    const file = (await vault.readFile(path))!;
    const { body: _, frontmatter: __, ...meta } = pageMeta(path, file.oid, file.content);
    metas.set(path, meta);
  }
  return metas;
}

describe('lint', () => {
  let dir: ReturnType<typeof tempDir>;
  let metas: Map<string, PageMeta>;
  let graph: LinkGraph;
  before(async () => {
    dir = tempDir();
    metas = await fixtureVault(dir.path);
    graph = LinkGraph.build(metas.values());
  });
  after(() => dir.cleanup());

  it('finds every rule on the fixture vault, with lines, sorted by path and line', () => {
    const report = lint(metas, graph, { maxPageBytes: MAX_PAGE_BYTES });
    expect(report.findings).to.deep.equal([
      { rule: 'oversize-page', path: 'Big.md', message: 'Page is 1524 bytes, over the limit of 1024' },
      { rule: 'invalid-frontmatter', path: 'Broken frontmatter.md', line: 1, message: report.findings[1].message },
      { rule: 'empty-page', path: 'Empty.md', message: 'Page has no text beyond frontmatter and headings' },
      { rule: 'broken-link', path: 'Home.md', line: 4, message: '[[Missing Page]] matches no page' },
      { rule: 'orphan-page', path: 'Lonely.md', message: 'No page links here and this page links to no page' },
      { rule: 'duplicate-title', path: 'Notes/Topic.md', message: 'Title "Topic" is also the title of notes/Topic.md' },
      { rule: 'case-collision', path: 'Notes/Topic.md', message: 'Path differs only in case from notes/Topic.md' },
      { rule: 'duplicate-title', path: 'Projects/Alpha.md', message: 'Title "Alpha" is also the title of Projects/Beta.md' },
      { rule: 'broken-link', path: 'Projects/Alpha.md', line: 6, message: 'Link to Archive/Gone.md matches no page' },
      { rule: 'duplicate-title', path: 'Projects/Beta.md', line: 1, message: 'Title "Alpha" is also the title of Projects/Alpha.md' },
      { rule: 'duplicate-title', path: 'notes/Topic.md', message: 'Title "Topic" is also the title of Notes/Topic.md' },
      { rule: 'case-collision', path: 'notes/Topic.md', message: 'Path differs only in case from Notes/Topic.md' },
    ]);
    expect(report.findings[1].message).to.match(/^Frontmatter does not parse: \S/);
    expect(report.counts).to.deep.equal({
      'broken-link': 2,
      'orphan-page': 1,
      'empty-page': 1,
      'duplicate-title': 4,
      'invalid-frontmatter': 1,
      'case-collision': 2,
      'unportable-name': 0,
      'oversize-page': 1,
      'missing-attachment': 0,
    });
  });

  it('exempts capture/, the root GUIDE.md and folder index pages from orphan-page', () => {
    const orphans = lint(metas, graph, { maxPageBytes: MAX_PAGE_BYTES }).findings.filter((f) => f.rule === 'orphan-page');
    expect(orphans.map((f) => f.path)).to.deep.equal(['Lonely.md']);
    expect(graph.inDegree('capture/2026-01-01-an-idea.md') + graph.outDegree('Projects/index.md')).to.equal(0);
  });

  it('reports every rule in counts even when nothing is found', () => {
    const report = lint(new Map(), LinkGraph.build([]), { maxPageBytes: MAX_PAGE_BYTES });
    expect(report.findings).to.deep.equal([]);
    expect(Object.keys(report.counts)).to.deep.equal([...LINT_RULES]);
  });

  it('lints only visible pages, as if hidden pages did not exist: links to them are broken, nothing names them', () => {
    const report = lint(metas, graph, { maxPageBytes: MAX_PAGE_BYTES, visible: (p) => !p.startsWith('Projects/') });
    // Home links two Projects/ pages: those links read as broken, exactly like its link to no
    // page, and as written in Home, so nothing tells that hidden pages answer them.
    expect(report.findings.filter((f) => f.path === 'Home.md').map((f) => [f.line, f.message])).to.deep.equal([
      [3, '[[Beta]] matches no page'],
      [3, '[[Projects/Alpha]] matches no page'],
      [4, '[[Missing Page]] matches no page'],
    ]);
    expect(JSON.stringify(report.findings.filter((f) => f.path !== 'Home.md'))).not.to.contain('Projects');
    expect(report.counts['duplicate-title']).to.equal(2);
  });
});
