import { expect } from 'chai';
import { withTaskStatus } from '../../../vault-store/edits/task-status.js';
import { QuireError } from '../../../vault-store/errors.js';
import { Workspace } from '../../../vault-store/workspace.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';

const DAY = '2026-11-26';

describe('setting a task status', () => {
  it('changes only the checkbox character on a page without Tasks-plugin dates, line endings kept', () => {
    const text = '# T\r\n- [ ] one [due:: 2026-12-01]\r\n  - [ ] two\r\n';
    expect(withTaskStatus(text, 2, 'x', DAY)).to.equal('# T\r\n- [x] one [due:: 2026-12-01]\r\n  - [ ] two\r\n');
    expect(withTaskStatus(text, 3, '/', DAY)).to.equal('# T\r\n- [ ] one [due:: 2026-12-01]\r\n  - [/] two\r\n');
  });

  it('adds ✅ today when completing on a page that writes emoji dates anywhere, before a block id, and only once', () => {
    const text = '- [ ] pay 📅 2026-12-01\n- [ ] call ^call-1\n- [ ] mail   \n- [ ]\n';
    expect(withTaskStatus(text, 1, 'x', DAY)).to.equal(`- [x] pay 📅 2026-12-01 ✅ ${DAY}\n- [ ] call ^call-1\n- [ ] mail   \n- [ ]\n`);
    expect(withTaskStatus(text, 2, 'X', DAY)).to.equal(`- [ ] pay 📅 2026-12-01\n- [X] call ✅ ${DAY} ^call-1\n- [ ] mail   \n- [ ]\n`);
    expect(withTaskStatus(text, 3, 'x', DAY)).to.equal(`- [ ] pay 📅 2026-12-01\n- [ ] call ^call-1\n- [x] mail ✅ ${DAY}\n- [ ]\n`);
    expect(withTaskStatus(text, 4, 'x', DAY)).to.equal(`- [ ] pay 📅 2026-12-01\n- [ ] call ^call-1\n- [ ] mail   \n- [x] ✅ ${DAY}\n`);
    const dated = '- [ ] old ✅ 2026-01-01\n';
    expect(withTaskStatus(dated, 1, 'x', DAY)).to.equal('- [x] old ✅ 2026-01-01\n');
  });

  it('removes the done dates when a done task is reopened or cancelled, and keeps them from x to X', () => {
    const text = '- [x] pay 📅 2026-12-01 ✅ 2026-11-20 ^p\n';
    expect(withTaskStatus(text, 1, ' ', DAY)).to.equal('- [ ] pay 📅 2026-12-01 ^p\n');
    expect(withTaskStatus(text, 1, '-', DAY)).to.equal('- [-] pay 📅 2026-12-01 ^p\n');
    expect(withTaskStatus(text, 1, 'X', DAY)).to.equal('- [X] pay 📅 2026-12-01 ✅ 2026-11-20 ^p\n');
  });

  it('refuses a line that is no task: text, a task in code or front-matter, past the end', () => {
    const text = '---\nx: "- [ ] no"\n---\n```\n- [ ] no\n```\ntext\n';
    for (const line of [2, 5, 7, 99]) {
      expect(() => withTaskStatus(text, line, 'x', DAY), String(line))
        .to.throw(QuireError)
        .with.property('code', 'INVALID_REQUEST');
    }
  });

  describe('through the workspace', () => {
    let ctx: Awaited<ReturnType<typeof tempVault>>;
    let index: { path: string; cleanup: () => void };
    let ws: Workspace;

    beforeEach(async () => {
      ctx = await tempVault();
      index = tempDir('quire-index-');
      ws = await Workspace.open(ctx.dir, { indexDir: index.path, persistDelayMs: false });
    });
    afterEach(async () => {
      await ws.close();
      ctx.cleanup();
      index.cleanup();
    });

    it('commits once, and the task index shows the new status at that commit', async () => {
      const { page } = await ws.pages.write(testAuthor, { path: 'a.md', content: '- [ ] one\n' });
      const head = ws.head;
      const result = await ws.setTaskStatus(testAuthor, { path: 'a.md', line: 1, status: 'x', baseHash: page.hash, today: DAY });
      expect(result.task).to.include({ path: 'a.md', line: 1, status: 'x', done: true, text: 'one' });
      expect(result.commit).to.equal(ws.head).and.not.equal(head);
      expect(ws.knowledge.tasks({ status: 'done', limit: 9 })).to.include({ total: 1, indexed_commit: ws.head });
    });

    it('names the line nearest the old one holding the same task text in a CONFLICT, and no line once it is gone', async () => {
      const v1 = (await ws.pages.write(testAuthor, { path: 'a.md', content: '- [ ] same\n- [ ] other\n- [ ] same\n' })).page.hash;
      const v2 = (await ws.pages.write(testAuthor, { path: 'a.md', content: '- [ ] same\n\n\n- [ ] other\n- [ ] same\n' })).page.hash;
      const refused = (line: number) =>
        ws.setTaskStatus(testAuthor, { path: 'a.md', line, status: 'x', baseHash: v1, today: DAY }).then(
          () => expect.fail('no conflict'),
          (err: QuireError) => err,
        );
      expect((await refused(3)).details).to.include({ current_hash: v2, line: 5 });
      expect((await refused(1)).details).to.include({ current_hash: v2, line: 1 });
      await ws.pages.write(testAuthor, { path: 'a.md', content: 'no tasks\n' });
      const gone = await refused(2);
      expect(gone.code).to.equal('CONFLICT');
      expect(gone.details).not.to.have.property('line');
    });
  });
});
