import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { gitIn } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { repeated, streamUpload } from '../../helpers/upload.js';
import { waitFor } from '../../vault-store/watcher/helpers.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';

const MIB = 1024 * 1024;
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(3000)]);

/** What `git hash-object` says of some bytes. */
const blobId = (bytes: Buffer) => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

describe('REST files (attachments)', () => {
  let server: TestServer;
  let key: string;
  const dir = () => vaultDir(server.dataDir, 'alice');

  beforeEach(async () => {
    server = await startTestServer({}, (c) => {
      c.plans.personal.max_file_bytes = 64 * MIB;
      return c;
    });
    key = await server.key('alice', 'write');
  });
  afterEach(() => server.stop());

  const put = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
    server.api(`/vault/file/${path}`, { method: 'PUT', key, body, headers });

  it('writes a file as one commit (201, then 200), serves it with type, ETag and length, and keeps git status clean', async () => {
    const created = await put('img/diagram.png', PNG);
    expect(created.status).to.equal(201);
    const info = await created.json();
    expect(info).to.include({ path: 'img/diagram.png', hash: blobId(PNG), size: PNG.length, kind: 'attachment', created: true });
    expect(gitIn(dir(), 'log', '-1', '--format=%s').trim()).to.equal('Update img/diagram.png');
    expect(readFileSync(join(dir(), 'img/diagram.png')).equals(PNG)).to.equal(true);
    expect(gitIn(dir(), 'status', '--porcelain')).to.equal('');

    const read = await server.api('/vault/file/img/diagram.png', { key });
    expect(read.status).to.equal(200);
    expect(read.headers.get('content-type')).to.equal('image/png');
    expect(read.headers.get('etag')).to.equal(`"${info.hash}"`);
    expect(read.headers.get('content-length')).to.equal(String(PNG.length));
    expect(Buffer.from(await read.arrayBuffer()).equals(PNG)).to.equal(true);
    const cached = await server.api('/vault/file/img/diagram.png', { key, headers: { 'if-none-match': `"${info.hash}"` } });
    expect(cached.status).to.equal(304);

    const replaced = await put('img/diagram.png', Buffer.from('v2'), { 'if-match': `"${info.hash}"` });
    expect(replaced.status).to.equal(200);
    expect(await replaced.json()).to.include({ created: false, hash: blobId(Buffer.from('v2')) });
    const same = await put('img/diagram.png', Buffer.from('v2'));
    expect((await same.json()).commit).to.equal(null);
  });

  it('applies the page rules for concurrency: stale If-Match and If-None-Match: * on an existing file are 409 with the current hash', async () => {
    const { hash } = await (await put('a.pdf', Buffer.from('%PDF-1'))).json();
    const stale = await put('a.pdf', Buffer.from('x'), { 'if-match': '"' + '0'.repeat(40) + '"' });
    expect(stale.status).to.equal(409);
    expect(await stale.json()).to.include({ code: 'CONFLICT', current_hash: hash });
    const exists = await put('a.pdf', Buffer.from('x'), { 'if-none-match': '*' });
    expect(exists.status).to.equal(409);
    expect((await put('b.pdf', Buffer.from('x'), { 'if-none-match': '*' })).status).to.equal(201);
    expect((await put('c.pdf', Buffer.from('x'), { 'if-match': 'nonsense' })).status).to.equal(400);

    const staleDelete = await server.api('/vault/file/a.pdf', {
      method: 'DELETE',
      key,
      headers: { 'if-match': `"${blobId(Buffer.from('x'))}"` },
    });
    expect(staleDelete.status).to.equal(409);
    const deleted = await server.api('/vault/file/a.pdf', { method: 'DELETE', key, headers: { 'if-match': `"${hash}"` } });
    expect(deleted.status).to.equal(200);
    expect(existsSync(join(dir(), 'a.pdf'))).to.equal(false);
    expect((await server.api('/vault/file/a.pdf', { key })).status).to.equal(404);
    expect((await server.api('/vault/file/a.pdf', { method: 'DELETE', key })).status).to.equal(404);
    expect(gitIn(dir(), 'status', '--porcelain')).to.equal('');
  });

  it('lists every file with hash, size and kind, by folder and in pages', async () => {
    await server.api('/vault/page', { method: 'POST', key, json: { path: 'notes/a.md', content: '# A\n' } });
    await put('notes/b.png', PNG);
    await put('z/c.bin', Buffer.alloc(10));
    const all = await (await server.api('/vault/files', { key })).json();
    expect(all.files).to.deep.equal([
      { path: 'notes/a.md', hash: blobId(Buffer.from('# A\n')), size: 4, kind: 'page' },
      { path: 'notes/b.png', hash: blobId(PNG), size: PNG.length, kind: 'attachment' },
      { path: 'z/c.bin', hash: blobId(Buffer.alloc(10)), size: 10, kind: 'attachment' },
    ]);
    const first = await (await server.api('/vault/files?prefix=notes&limit=1', { key })).json();
    expect(first.files.map((f: { path: string }) => f.path)).to.deep.equal(['notes/a.md']);
    const next = await (await server.api(`/vault/files?prefix=notes&limit=1&cursor=${first.next_cursor}`, { key })).json();
    expect(next).to.deep.include({ next_cursor: null });
    expect(next.files.map((f: { path: string }) => f.path)).to.deep.equal(['notes/b.png']);
  });

  it('answers one Range with 206, a suffix range too, one past the end with 416, several with the whole file', async () => {
    const bytes = randomBytes(1000);
    await put('r.bin', bytes);
    const get = (range: string, extra: Record<string, string> = {}) =>
      server.api('/vault/file/r.bin', { key, headers: { range, ...extra } });
    const middle = await get('bytes=10-19');
    expect(middle.status).to.equal(206);
    expect(middle.headers.get('content-range')).to.equal('bytes 10-19/1000');
    expect(Buffer.from(await middle.arrayBuffer()).equals(bytes.subarray(10, 20))).to.equal(true);
    const suffix = await get('bytes=-5');
    expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(995))).to.equal(true);
    const past = await get('bytes=5000-');
    expect(past.status).to.equal(416);
    expect(past.headers.get('content-range')).to.equal('bytes */1000');
    const several = await get('bytes=0-1,500-501');
    expect(several.status).to.equal(200);
    expect((await several.arrayBuffer()).byteLength).to.equal(1000);
    const otherVersion = await get('bytes=0-1', { 'if-range': `"${'0'.repeat(40)}"` });
    expect(otherVersion.status).to.equal(200);
  });

  it('takes a 50 MiB upload streamed (with and without Content-Length) and serves a range of it', async function () {
    this.timeout(120_000);
    const chunk = randomBytes(MIB);
    const count = 50;
    const whole = createHash('sha1').update(`blob ${count * MIB}\0`);
    for (let i = 0; i < count; i++) whole.update(chunk);
    const expected = whole.digest('hex');
    const sized = await streamUpload(`${server.url}/vault/file/big/video.bin`, key, repeated(chunk, count), { length: count * MIB });
    expect(sized.status, JSON.stringify(sized.body)).to.equal(201);
    expect(sized.body).to.include({ hash: expected, size: count * MIB });
    expect(gitIn(dir(), 'hash-object', 'big/video.bin').trim()).to.equal(expected);
    const chunked = await streamUpload(`${server.url}/vault/file/big/copy.bin`, key, repeated(chunk, count));
    expect(chunked.status, JSON.stringify(chunked.body)).to.equal(201);
    expect(chunked.body).to.include({ hash: expected });

    const start = 30 * MIB + 123;
    const part = await server.api('/vault/file/big/video.bin', { key, headers: { range: `bytes=${start}-${start + 99_999}` } });
    expect(part.status).to.equal(206);
    const got = Buffer.from(await part.arrayBuffer());
    const offset = start % MIB;
    expect(got.equals(Buffer.concat([chunk, chunk]).subarray(offset, offset + 100_000))).to.equal(true);
    expect(gitIn(dir(), 'status', '--porcelain')).to.equal('');
    expect(readdirSync(join(dir(), '.git', 'quire-uploads'))).to.deep.equal([]);
  });

  it('refuses a file over the plan’s max_file_bytes with 413 naming the limit, announced or found while streaming, and keeps nothing', async function () {
    this.timeout(60_000);
    const before = gitIn(dir(), 'rev-parse', 'HEAD').trim();
    const chunk = randomBytes(MIB);
    const announced = await streamUpload(`${server.url}/vault/file/huge.bin`, key, repeated(chunk, 80), { length: 80 * MIB });
    expect(announced.status).to.equal(413);
    expect(announced.body).to.include({ code: 'PAYLOAD_TOO_LARGE', limit: 64 * MIB, limit_name: 'max_file_bytes' });
    const streamed = await streamUpload(`${server.url}/vault/file/huge.bin`, key, repeated(chunk, 80));
    expect(streamed.status).to.equal(413);
    expect(String(streamed.body.message)).to.include(`${64 * MIB}`);
    expect(gitIn(dir(), 'rev-parse', 'HEAD').trim()).to.equal(before);
    expect(readdirSync(join(dir(), '.git', 'quire-uploads'))).to.deep.equal([]);
    expect(existsSync(join(dir(), 'huge.bin'))).to.equal(false);
  });

  it('lists attachments in the change feed with their kind, the snapshot included', async () => {
    const { head } = await (await server.api('/vault/changes', { key })).json();
    await put('img/a.png', PNG);
    await server.api('/vault/page', { method: 'POST', key, json: { path: 'n.md', content: '![[a.png]]\n' } });
    const feed = await (await server.api(`/vault/changes?since=${head}`, { key })).json();
    expect(feed.changes.flatMap((c: { paths: unknown[] }) => c.paths)).to.deep.equal([
      { path: 'img/a.png', op: 'add', hash: blobId(PNG), kind: 'attachment' },
      { path: 'n.md', op: 'add', hash: blobId(Buffer.from('![[a.png]]\n')), kind: 'page' },
    ]);
    const snapshot = await (await server.api('/vault/changes', { key })).json();
    expect(snapshot.changes[0].paths.map((p: { path: string; kind: string }) => `${p.kind}:${p.path}`)).to.deep.equal([
      'attachment:img/a.png',
      'page:n.md',
    ]);
  });

  it('resolves embeds and links to attachments: lint reports the missing ones, health counts the unreferenced, graph and backlinks show them', async () => {
    await put('img/a.png', PNG);
    await put('docs/b.pdf', Buffer.from('%PDF'));
    await put('unused/c.png', PNG);
    const text = '# N\n![[a.png]]\n[manual](docs/b.pdf)\n![[missing.png]]\n![](img/nope.png)\n';
    await server.api('/vault/page', {
      method: 'POST',
      key,
      json: { path: 'notes/n.md', content: text.replace('docs/b.pdf', '../docs/b.pdf') },
    });
    const lint = await (await server.api('/vault/lint', { key })).json();
    const missing = lint.findings.filter((f: { rule: string }) => f.rule === 'missing-attachment');
    expect(missing).to.deep.equal([
      { rule: 'missing-attachment', path: 'notes/n.md', line: 4, message: 'missing.png matches no file of the vault' },
      { rule: 'missing-attachment', path: 'notes/n.md', line: 5, message: 'notes/img/nope.png matches no file of the vault' },
    ]);
    expect(lint.counts['missing-attachment']).to.equal(2);
    expect(lint.findings.filter((f: { rule: string }) => f.rule === 'broken-link')).to.deep.equal([]);
    const health = await (await server.api('/vault/health', { key })).json();
    expect(health.attachments).to.deep.equal({ total: 3, unreferenced: 1 });

    const backlinks = await (await server.api('/vault/backlinks/img/a.png', { key })).json();
    expect(backlinks).to.deep.equal({ path: 'img/a.png', backlinks: [{ path: 'notes/n.md', title: 'N' }] });
    expect((await server.api('/vault/backlinks/img/none.png', { key })).status).to.equal(404);
    const graph = await (await server.api('/vault/graph', { key })).json();
    expect(graph.nodes.map((n: { path: string; kind: string }) => `${n.kind}:${n.path}`)).to.deep.equal([
      'attachment:docs/b.pdf',
      'attachment:img/a.png',
      'page:notes/n.md',
    ]);
    expect(graph.edges).to.deep.include({ source: 'notes/n.md', target: 'docs/b.pdf', kind: 'markdown' });
    const around = await (await server.api(`/vault/graph?path=${encodeURIComponent('docs/b.pdf')}`, { key })).json();
    expect(around.nodes.map((n: { path: string }) => n.path)).to.deep.equal(['docs/b.pdf', 'notes/n.md']);
  });

  it('lists attachments that arrive through the folder or an outside git commit, in files and in the change feed', async function () {
    this.timeout(30_000);
    const { head } = await (await server.api('/vault/changes', { key })).json();
    const listed = async () => ((await (await server.api('/vault/files', { key })).json()).files as { path: string }[]).map((f) => f.path);
    mkdirSync(join(dir(), 'scans'));
    writeFileSync(join(dir(), 'scans/page1.jpg'), PNG);
    await waitFor('the dropped file listed', async () => ((await listed()).includes('scans/page1.jpg') ? true : undefined));
    // The server puts `.git/index` in place just after the commit that listed the file: git
    // refuses to stage while its lock is there, as it would for anyone in the folder then.
    await waitFor('the index unlocked', async () => (existsSync(join(dir(), '.git/index.lock')) ? undefined : true));
    writeFileSync(join(dir(), 'song.mp3'), Buffer.from('ID3'));
    gitIn(dir(), 'add', 'song.mp3');
    gitIn(dir(), '-c', 'user.name=me', '-c', 'user.email=me@example.com', 'commit', '-qm', 'Add a song');
    await waitFor('the committed file listed', async () => ((await listed()).includes('song.mp3') ? true : undefined));
    const feed = await (await server.api(`/vault/changes?since=${head}`, { key })).json();
    expect(
      feed.changes.flatMap((c: { paths: { path: string; kind: string }[] }) => c.paths.map((p) => `${p.kind}:${p.path}`)),
    ).to.deep.equal(['attachment:scans/page1.jpg', 'attachment:song.mp3']);
  });
});
