import { expect } from 'chai';
import { pageMeta } from '../../../vault-store/knowledge/page-meta.js';
import { scanMarkdown } from '../../../vault-store/markdown/scan.js';
import { taskFields } from '../../../vault-store/markdown/task-fields.js';

const tasks = (text: string) => pageMeta('p.md', 'h', Buffer.from(text)).tasks;
const spans = (text: string) => scanMarkdown(text).tasks.map((t) => [t.line, t.level, t.status, text.slice(t.textAt, t.end)]);

describe('task items', () => {
  it('reads -, *, + and ordered list items whose text starts [c], any one character kept as written', () => {
    const text = '- [ ] a\n* [x] b\n+ [X] c\n1. [/] d\n12) [-] e\n- [🔥] f\n- [ ]\n\t- [>] g\n> - [?] h\n';
    expect(spans(text)).to.deep.equal([
      [1, 0, ' ', 'a'],
      [2, 0, 'x', 'b'],
      [3, 0, 'X', 'c'],
      [4, 0, '/', 'd'],
      [5, 0, '-', 'e'],
      [6, 0, '🔥', 'f'],
      [7, 0, ' ', ''],
      [8, 1, '>', 'g'],
      [9, 0, '?', 'h'],
    ]);
  });

  it('reads no task without a list marker, a space after it, one character in brackets and a space after them', () => {
    const text = '[ ] a\n-[ ] b\n- [] c\n- [xx] d\n- [x]e\n1234567890. [ ] f\n- [ x ] g\n---\n- [[link]] h\n';
    expect(spans(text)).to.deep.equal([]);
  });

  it('skips tasks in fenced code and front-matter, and counts lines in the whole file', () => {
    const text = '---\nlist: "- [ ] no"\n---\n```\n- [ ] no\n```\n~~~md\n- [ ] no\n~~~\n- [ ] yes\n';
    expect(tasks(text).map((t) => [t.line, t.text])).to.deep.equal([[10, 'yes']]);
  });

  it('nests by indentation under any list item, until a line at the margin that is no list item', () => {
    const text =
      '- plain\n  - [ ] one\n    - [ ] two\n  - [ ] one again\n\n      continuation\n  - [ ] still one\nParagraph\n  - [ ] top again\n';
    expect(tasks(text).map((t) => [t.text, t.level])).to.deep.equal([
      ['one', 1],
      ['two', 2],
      ['one again', 1],
      ['still one', 1],
      ['top again', 0],
    ]);
  });

  it('gives each task the heading above it and the tags of its own line, read as everywhere else', () => {
    const text = '#page-tag\n- [ ] before\n# Plan\n## Week #notag\n- [ ] Call #work/acme `#code` [x](#anchor) #Home\n';
    expect(tasks(text).map((t) => [t.heading, t.tags])).to.deep.equal([
      [null, []],
      ['Week #notag', ['work/acme', 'Home']],
    ]);
  });

  it('reads Tasks-plugin emoji dates and Dataview fields, the first of each kind, and drops them from the text', () => {
    const { text, dates, emoji } = taskFields(
      'Pay 📅 2026-12-01 ⏳2026-11-30 🛫 2026-11-01 ➕ 2026-10-01 ✅ 2026-12-02 ❌ 2026-12-03 📅 2027-01-01 ^id',
    );
    expect(dates).to.deep.equal({
      due: '2026-12-01',
      scheduled: '2026-11-30',
      start: '2026-11-01',
      created: '2026-10-01',
      completion: '2026-12-02',
      cancelled: '2026-12-03',
    });
    expect([text, emoji]).to.deep.equal(['Pay ^id', true]);
    const fields = taskFields('Call [due:: 2026-12-01] (Scheduled:: 2026-11-20T10:00) [done:: 2026-11-21] (start::2026-11-01) back');
    expect(fields).to.deep.equal({
      text: 'Call back',
      dates: { due: '2026-12-01', scheduled: '2026-11-20', completion: '2026-11-21', start: '2026-11-01' },
      emoji: false,
    });
  });

  it('leaves what is no date as text: impossible days, other fields, unclosed fields', () => {
    const raw = 'x 📅 2026-13-01 [due:: soon] [owner:: ann] (due:: 2026-12-01 ✅';
    expect(taskFields(raw)).to.deep.equal({ text: raw, dates: {}, emoji: false });
  });
});
