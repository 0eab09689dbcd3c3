import { expect } from 'chai';
import { MAX_FRONTMATTER_BYTES } from '../../../vault-store/markdown/frontmatter.js';
import { scanMarkdown } from '../../../vault-store/markdown/scan.js';
import { parsePage } from '../../../vault-store/page.js';
import { rewriteLinks } from '../../../vault-store/edits/rewrite-links.js';
import { withTaskStatus } from '../../../vault-store/edits/task-status.js';
import { pageMeta } from '../../../vault-store/knowledge/page-meta.js';
import { expectCpuMs } from '../../helpers/cpu-time.js';

const MIB = 1 << 20;
// Pages arrive decoded from bytes, as flat strings; `repeat` alone builds a rope.
const flat = (text: string) => Buffer.from(text).toString();
const fill = (unit: string, size = MIB) => flat(unit.repeat(Math.ceil(size / unit.length)).slice(0, size));

function backtickRuns(nextLength: (n: number) => number): string {
  let text = '';
  for (let n = 1; text.length < MIB; n = nextLength(n)) text += `${'`'.repeat(n)}a`;
  return flat(text.slice(0, MIB));
}

const HOSTILE_PAGES: Record<string, string> = {
  '[': fill('['),
  '](': fill(']('),
  '[](x': fill('[](x'),
  '[](x "': fill('[](x "'),
  '[x](': fill('[x]('),
  '[[': fill('[['),
  '[[a|': fill('[[a|'),
  '![': fill('!['),
  '#': fill('#'),
  '#1': fill('#1'),
  'spaces then #': fill(' #'),
  'one long run of spaces, then #': flat(`${' '.repeat(MIB - 1)}#`),
  'backtick runs of every length up to 1,447, none closed': backtickRuns((n) => n + 1),
  'backtick runs cycling through lengths 1..64': backtickRuns((n) => (n % 64) + 1),
  'nested brackets': flat('['.repeat(MIB / 2) + ']'.repeat(MIB / 2)),
  'nested brackets, never closed twice': fill('[[[]'),
  '(((': fill('('),
  '"': fill('"'),
  'fence lines': fill('```\n'),
};

/** A billion-laughs block: nine levels of lists of aliases to the level below. */
function aliasBomb(): string {
  let yaml = 'a0: &a0 ["lol"]\n';
  for (let i = 1; i <= 9; i++)
    yaml += `a${i}: &a${i} [${Array(9)
      .fill(`*a${i - 1}`)
      .join(', ')}]\n`;
  return `---\n${yaml}---\n`;
}

// Blocks just under the cap that the yaml library reads slowest, valid or not.
const HOSTILE_BLOCKS: Record<string, string> = {
  'one complex key after another': '? [a]\n: b\n',
  'key lines': 'k: v\n',
  'flow lists': 'k: [a, b]\n',
  'blank lines': '\n',
  'unclosed quotes': 'a: "\n',
  'keys nested one space deeper': 'a:\n ',
  'unknown tags': 'a: !foo x\n',
  anchors: '&a ',
};

describe('markdown scanning is linear on 1 MiB hostile pages', function () {
  this.timeout(60_000);

  // Timed runs measure compiled code, as on a running server: V8 first interprets what it has
  // not yet run, several times slower, whatever the algorithm.
  before(() => {
    for (const unit of Object.values(HOSTILE_BLOCKS)) parsePage('p.md', `---\n${fill(unit, MAX_FRONTMATTER_BYTES - 1)}\n---\n`);
    parsePage('p.md', Object.values(HOSTILE_PAGES).join('\n'));
  });

  for (const [name, page] of Object.entries(HOSTILE_PAGES)) {
    it(`scans "${name}", and parses it under an alias bomb, in 100 ms or less each`, () => {
      expectCpuMs(() => scanMarkdown(page), 100, 'scan');
      const withBomb = aliasBomb() + page;
      expect(parsePage('p.md', withBomb).frontmatterError).to.match(/alias/);
      expectCpuMs(() => parsePage('p.md', withBomb), 100, 'parse');
    });
  }

  // The front-matter cap exists so the slowest block the yaml library can be fed stays well
  // inside the 200 ms the attack suite lets /healthz wait (about 40 ms on a quiet machine).
  for (const [name, unit] of Object.entries(HOSTILE_BLOCKS)) {
    it(`parses a page whose front-matter is ${MAX_FRONTMATTER_BYTES} bytes of ${name} in 200 ms or less`, () => {
      const page = `---\n${fill(unit, MAX_FRONTMATTER_BYTES - 1)}\n---\n${HOSTILE_PAGES['[](x']}`;
      expectCpuMs(() => parsePage('p.md', page), 200);
    });
  }

  // Task lines: every line a task, and one task whose text is made of unfinished date markers.
  const TASK_PAGES: Record<string, string> = {
    'a task on every line': fill('- [ ] t #x\n'),
    'list items nested ever deeper, then one at the margin': flat(
      `${Array.from({ length: 1400 }, (_, i) => `${' '.repeat(i)}- [ ] d`).join('\n')}\n- [ ] top\n`,
    ),
    'date emoji without dates': flat(`- [ ] ${fill('📅 ✅  2026-1', MIB - 8)}`),
    'unclosed Dataview fields': flat(`- [ ] ${fill('[due:: 2026-12-01 (due::', MIB - 8)}`),
    'done markers to remove': flat(`- [x] ${fill(' ✅ 2026-01-01', MIB - 8)}`),
    // A done marker's spaces were read again from each space of the run: 100k of them took 86 s.
    'a done task of spaces, then an undated ✅': flat(`- [x] ${' '.repeat(MIB - 16)}✅ x`),
  };
  for (const [name, page] of Object.entries(TASK_PAGES)) {
    it(`reads the tasks of "${name}" and sets the first one's status in 200 ms or less each`, () => {
      const bytes = Buffer.from(page);
      pageMeta('p.md', 'h', bytes);
      expect(pageMeta('p.md', 'h', bytes).tasks.length).to.be.above(0);
      // Once unmeasured, as for the read: a first edit is mostly compiling (~390 ms against ~100 warm).
      withTaskStatus(page, 1, 'x', '2026-11-26');
      expectCpuMs(() => pageMeta('p.md', 'h', bytes), 200, 'read');
      expectCpuMs(() => withTaskStatus(page, 1, 'x', '2026-11-26'), 200, 'done');
      expectCpuMs(() => withTaskStatus(page, 1, ' ', '2026-11-26'), 200, 'reopen');
    });
  }

  it('rewrites links on a long hostile line once, in 100 ms or less', () => {
    const move = { from: 'notes/Old.md', to: 'archive/New Name.md', wikiTargets: new Set(['Old']), newWikiTarget: 'New Name' };
    const line = `${'[](x'.repeat(15_000)} [[Old]]`;
    expect(rewriteLinks(line, 'notes/index.md', 'notes/index.md', move)).to.equal(`${'[](x'.repeat(15_000)} [[New Name]]`);
    expectCpuMs(() => rewriteLinks(line, 'notes/index.md', 'notes/index.md', move), 100);
  });
});
