import { expect } from 'chai';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PWNED = 'pwned.txt';

/** Every file named `name` under `dir`, however deep. */
function findFiles(dir: string, name: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.split('/').pop() === name)
    .map((p) => join(dir, p));
}

/**
 * Front-matter is data, never code. gray-matter evaluated a `---js` block with `require`
 * in reach, on every read and index rebuild: this request ran code as the server.
 */
describe('security: front-matter never runs as code', function () {
  this.timeout(60_000);
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer();
    key = await server.key('mallory', 'write');
  });
  after(async () => {
    await server.stop();
    rmSync(join(process.cwd(), PWNED), { force: true }); // only there if the attack worked
  });

  const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await server.api(path, { ...init, key });
    expect(res.status, `${init.method ?? 'GET'} ${path}`).to.be.below(500);
    return { status: res.status, body: await res.json() };
  };
  const noPwnedFile = () => {
    expect(existsSync(join(process.cwd(), PWNED)), `${PWNED} in the working directory`).to.equal(false);
    expect(findFiles(server.dataDir, PWNED), `${PWNED} in the data folder`).to.deep.equal([]);
  };

  const code = `require('fs').writeFileSync('${PWNED}','pwned')`;
  const PAGES: Record<string, { content: string; error: RegExp }> = {
    'js.md': {
      content: `---js\n{title: (${code}, 'ok')}\n---\nbody\n`,
      error: /^front-matter language "js" is not supported; only YAML is read$/,
    },
    'javascript.md': { content: `---javascript\n{title: (${code}, 'ok')}\n---\nbody\n`, error: /language "javascript" is not supported/ },
    'coffee.md': { content: `---coffee\ntitle: do -> ${code}\n---\nbody\n`, error: /language "coffee" is not supported/ },
    'json.md': {
      content: `---json\n{"title": (function () { ${code}; return "ok" })()}\n---\nbody\n`,
      error: /language "json" is not supported/,
    },
    'js-function.md': {
      content: `---\ntitle: !!js/function "function () { ${code} }"\n---\nbody\n`,
      error: /Unresolved tag: tag:yaml\.org,2002:js\/function/,
    },
    'custom-tag.md': { content: '---\ntitle: !exec "touch pwned.txt"\n---\nbody\n', error: /Unresolved tag: !exec/ },
  };

  it('stores the exact ---js request from the report and runs nothing, on write or read', async () => {
    const written = await api('/vault/page', { method: 'POST', json: { path: 'a.md', content: PAGES['js.md'].content } });
    expect(written.status).to.be.within(200, 299);
    const read = await api('/vault/page/a.md');
    expect(read.body).to.include({ title: 'a', content: PAGES['js.md'].content });
    expect(read.body.frontmatter).to.deep.equal({});
    expect(read.body.frontmatter_error).to.match(PAGES['js.md'].error);
    noPwnedFile();
  });

  it('reads other languages and YAML code tags as errors, never as values, on every surface', async () => {
    for (const [path, { content, error }] of Object.entries(PAGES)) {
      await api('/vault/page', { method: 'POST', json: { path, content } });
      const page = (await api(`/vault/page/${path}`)).body;
      expect(page.frontmatter, path).to.deep.equal({});
      expect(page.frontmatter_error, path).to.match(error);
      expect(page.title, path).to.equal(path.slice(0, -'.md'.length));
    }
    await api('/vault/index/rebuild', { method: 'POST' });
    const search = (await api('/vault/search?q=body')).body;
    expect(search.results.map((r: { path: string }) => r.path)).to.include.members(Object.keys(PAGES));
    expect((await api('/vault/search?q=writeFileSync')).body.results).to.deep.equal([]);
    const lint = (await api('/vault/lint')).body;
    expect(
      lint.findings.filter((f: { rule: string }) => f.rule === 'invalid-frontmatter').map((f: { path: string }) => f.path),
    ).to.include.members(Object.keys(PAGES));
    await api('/vault/pages/batch', { method: 'POST', json: { paths: Object.keys(PAGES) } });
    await api('/vault/context', { method: 'POST', json: { topic: 'body' } });
    noPwnedFile();
  });
});
