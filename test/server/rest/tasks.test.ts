import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const today = () => new Date().toISOString().slice(0, 10);

describe('REST tasks', () => {
  let server: TestServer;
  let key: string;

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write');
  });
  afterEach(() => server.stop());

  const get = (path: string) => server.api(path, { key });
  const post = (path: string, json: unknown) => server.api(path, { method: 'POST', key, json });
  const write = async (path: string, content: string): Promise<string> =>
    (await (await post('/vault/page', { path, content })).json()).hash;
  const tasks = async (query = '') => {
    const res = await get(`/vault/tasks${query}`);
    expect(res.status, await res.clone().text()).to.equal(200);
    return res.json();
  };

  it('lists open tasks due before a day, soonest first, with their fields', async () => {
    await write(
      'projects/alpha.md',
      '# Alpha\n## Next\n- [ ] Ship it 📅 2026-11-20 #work/release\n  - [x] Write notes ✅ 2026-11-18\n- [ ] Later [due:: 2027-01-05]\n',
    );
    await write('inbox.md', '- [/] Call Ann (due:: 2026-11-19)\n- [ ] No date\n```\n- [ ] in code\n```\n');
    const overdue = await tasks('?status=open&due_before=2026-12-01');
    expect(overdue.total).to.equal(2);
    expect(overdue.tasks.map((t: { path: string; line: number }) => `${t.path}:${t.line}`)).to.deep.equal([
      'inbox.md:1',
      'projects/alpha.md:3',
    ]);
    expect(overdue.tasks[1]).to.deep.equal({
      path: 'projects/alpha.md',
      line: 3,
      level: 0,
      status: ' ',
      done: false,
      text: 'Ship it #work/release',
      heading: 'Next',
      tags: ['work/release'],
      due: '2026-11-20',
    });
    const all = await tasks('?status=all');
    expect(all.total).to.equal(5);
    expect(all.tasks.map((t: { text: string }) => t.text)).to.deep.equal([
      'Call Ann',
      'Ship it #work/release',
      'Later',
      'No date',
      'Write notes',
    ]);
    expect((await tasks('?status=done')).tasks.map((t: { completion: string }) => t.completion)).to.deep.equal(['2026-11-18']);
    expect((await tasks('?tag=work')).total).to.equal(1);
    expect((await tasks('?prefix=projects&status=all')).total).to.equal(3);
    expect((await tasks('?text=CALL')).tasks[0].status).to.equal('/');
    expect((await tasks('?due_after=2026-11-20')).tasks.map((t: { text: string }) => t.text)).to.deep.equal(['Later']);
  });

  it('pages through results with next_cursor and refuses a cursor it did not issue', async () => {
    await write('a.md', Array.from({ length: 7 }, (_, i) => `- [ ] task ${i} 📅 2026-12-0${(i % 3) + 1}`).join('\n'));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { tasks: { text: string }[]; next_cursor: string | null; total: number } = await tasks(
        `?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.total).to.equal(7);
      seen.push(...page.tasks.map((t) => t.text));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).to.deep.equal(['task 0', 'task 3', 'task 6', 'task 1', 'task 4', 'task 2', 'task 5']);
    expect((await get('/vault/tasks?cursor=bm9wZQ')).status).to.equal(400);
    expect((await get('/vault/tasks?due_before=next-week')).status).to.equal(400);
    expect((await get('/vault/tasks?status=later')).status).to.equal(400);
  });

  it('completes a task with a done date when the page uses Tasks dates, and reopens it', async () => {
    const hash = await write('todo.md', '# Todo\n- [ ] Pay rent 📅 2026-12-01 ^rent\n- [ ] Water plants\n');
    const done = await (await post('/vault/task', { path: 'todo.md', line: 2, status: 'done', base_hash: hash })).json();
    expect(done.commit).to.be.a('string');
    expect(done.task).to.include({ line: 2, status: 'x', done: true, completion: today(), text: 'Pay rent ^rent' });
    const page = await (await get('/vault/page/todo.md')).json();
    expect(page.content).to.equal(`# Todo\n- [x] Pay rent 📅 2026-12-01 ✅ ${today()} ^rent\n- [ ] Water plants\n`);
    expect((await tasks('?status=done')).tasks[0]).to.include({ path: 'todo.md', line: 2 });

    const reopened = await (await post('/vault/task', { path: 'todo.md', line: 2, status: 'open', base_hash: done.hash })).json();
    expect((await (await get('/vault/page/todo.md')).json()).content).to.equal(
      '# Todo\n- [ ] Pay rent 📅 2026-12-01 ^rent\n- [ ] Water plants\n',
    );
    const again = await (await post('/vault/task', { path: 'todo.md', line: 2, status: 'open', base_hash: reopened.hash })).json();
    expect(again.commit).to.equal(null);
  });

  it('changes only the checkbox on a page without Tasks dates, whatever character is asked', async () => {
    const hash = await write('plain.md', '* [ ] Plain task [due:: 2026-12-01]\n');
    const res = await (await post('/vault/task', { path: 'plain.md', line: 1, status: '/', base_hash: hash })).json();
    expect((await (await get('/vault/page/plain.md')).json()).content).to.equal('* [/] Plain task [due:: 2026-12-01]\n');
    await post('/vault/task', { path: 'plain.md', line: 1, status: 'x', base_hash: res.hash });
    expect((await (await get('/vault/page/plain.md')).json()).content).to.equal('* [x] Plain task [due:: 2026-12-01]\n');
  });

  it('answers 409 with the current hash and the line the task moved to, and 400 for a line that is no task', async () => {
    const old = await write('moving.md', '- [ ] First\n- [ ] Second\n');
    const now = await write('moving.md', '# Added a heading\n\n- [ ] First\n- [ ] Second\n');
    const res = await post('/vault/task', { path: 'moving.md', line: 2, status: 'done', base_hash: old });
    expect(res.status).to.equal(409);
    expect(await res.json()).to.include({ code: 'CONFLICT', current_hash: now, line: 4 });
    const gone = await post('/vault/task', { path: 'moving.md', line: 1, status: 'done', base_hash: now });
    expect(gone.status).to.equal(400);
    expect((await gone.json()).code).to.equal('INVALID_REQUEST');
    expect((await post('/vault/task', { path: 'moving.md', line: 3, status: '[', base_hash: now })).status).to.equal(400);
    expect((await post('/vault/task', { path: 'missing.md', line: 1, status: 'done', base_hash: now })).status).to.equal(404);
  });
});
