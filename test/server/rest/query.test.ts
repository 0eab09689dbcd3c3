import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from '../mcp/mcp-client.js';

describe('REST POST /vault/query', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write');
    const pages: Record<string, string> = {
      'books/Dune.md': '---\ntype: book\nrating: 5\nread: 2026-03-01\n---\n# Dune\n',
      'books/Emma.md': '---\ntype: book\nrating: 4\nread: 2025-07-15\n---\n# Emma\n',
      'books/Ulysses.md': '---\ntype: book\nrating: 2\n---\n# Ulysses\n',
      'meetings/Kickoff.md': '---\ntags: [meeting]\n---\n# Kickoff\nWith [[Acme]].\n',
      'people/Acme.md': '# Acme\n',
    };
    for (const [path, content] of Object.entries(pages)) {
      expect((await post('/vault/page', { path, content })).status).to.equal(201);
    }
  });
  after(() => server.stop());

  function post(path: string, json: unknown) {
    return server.api(path, { method: 'POST', key, json });
  }

  it('answers rows, total, next_cursor and the indexed commit', async () => {
    const res = await post('/vault/query', {
      where: { '>=': [{ var: 'rating' }, 4] },
      sort: [{ field: 'read', dir: 'desc' }],
      fields: ['rating'],
      limit: 1,
    });
    expect(res.status).to.equal(200);
    const body = await res.json();
    expect(body.rows).to.deep.equal([{ path: 'books/Dune.md', title: 'Dune', rating: 5 }]);
    expect(body.total).to.equal(2);
    const next = await (
      await post('/vault/query', {
        where: { '>=': [{ var: 'rating' }, 4] },
        sort: [{ field: 'read', dir: 'desc' }],
        fields: ['rating'],
        cursor: body.next_cursor,
      })
    ).json();
    expect(next.rows.map((r: { path: string }) => r.path)).to.deep.equal(['books/Emma.md']);
    expect(next.next_cursor).to.equal(null);
  });

  it('counts a query with from in the read bucket, one over the whole vault in expensive', async () => {
    const narrowed = await post('/vault/query', { from: '#meeting' });
    expect(narrowed.headers.get('x-ratelimit-bucket')).to.equal('read');
    expect((await narrowed.json()).rows.map((r: { path: string }) => r.path)).to.deep.equal(['meetings/Kickoff.md']);
    const whole = await post('/vault/query', { where: { '==': [{ var: 'type' }, 'book'] } });
    expect(whole.headers.get('x-ratelimit-bucket')).to.equal('expensive');
  });

  it('refuses a malformed where, an unknown operator and a sort on a non-field with 400 naming the part', async () => {
    const refusals: [unknown, string][] = [
      [{ where: { and: [true, { eval: ['1'] }] } }, 'where.and[1].eval'],
      [{ where: 'rating > 4' }, 'where'],
      [{ sort: [{ field: 'colour' }] }, 'sort[0].field'],
      [{ limit: 1001 }, 'limit'],
    ];
    for (const [input, part] of refusals) {
      const res = await post('/vault/query', input);
      const body = await res.json();
      expect(res.status, JSON.stringify(input)).to.equal(400);
      expect(body.code).to.equal('INVALID_REQUEST');
      expect(body.message).to.contain(part);
    }
  });

  it('is the MCP tool query_pages, read-only, with the same rows', async () => {
    const mcp = await mcpClient(server.url, { bearer: key });
    try {
      const { tools } = await mcp.listTools();
      const tool = tools.find((t) => t.name === 'query_pages')!;
      expect(tool.annotations?.readOnlyHint).to.equal(true);
      expect(tool.description).to.contain('[[Acme]]');
      const result = await call(mcp, 'query_pages', { from: '[[Acme]]' });
      expect((result.structuredContent as { rows: { path: string }[] }).rows.map((r) => r.path)).to.deep.equal(['meetings/Kickoff.md']);
    } finally {
      await mcp.close();
    }
  });
});
