import { expect } from 'chai';
import { snippet, wordPattern } from '../../../../vault-store/knowledge/search/snippet.js';
import { isAscii, wordSpans } from '../../../../vault-store/knowledge/search/tokenize.js';
import { scaled } from '../../../helpers/soak.js';

/**
 * The snippet as first specified, collapsing the whole body and lower-casing it to find the
 * words (in text past ASCII, the tokenizer's words): the faster one (distances walked in the
 * text as it is, only the window collapsed) must give exactly these strings.
 */
function reference(body: string, matches: ReadonlySet<string>): string {
  const text = body
    .replace(/^\s*#[^\n]*\n/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const lower = text.toLowerCase();
  const alnum = (c: string | undefined) => c !== undefined && /[A-Za-z0-9]/.test(c);
  const spans: { start: number; end: number }[] = [];
  if (!isAscii(text)) spans.push(...wordSpans(text).filter((s) => s.terms.some((t) => matches.has(t))));
  else {
    for (const term of matches) {
      for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + 1)) {
        if (!alnum(lower[at - 1]) && !alnum(lower[at + term.length])) spans.push({ start: at, end: at + term.length });
      }
    }
  }
  spans.sort((a, b) => a.start - b.start);
  let start = spans[0]?.start ?? 0;
  let best = 0;
  for (let i = 0, j = 0; i < spans.length; i++) {
    while (spans[i].start - spans[j].start > 120) j++;
    if (i - j + 1 > best) [best, start] = [i - j + 1, spans[j].start];
  }
  let from = Math.max(0, start - 40);
  if (from > 0) from = text.indexOf(' ', from) + 1 || from;
  let to = Math.min(text.length, from + 180);
  if (to < text.length) to = text.lastIndexOf(' ', to) > from ? text.lastIndexOf(' ', to) : to;
  let out = '';
  let at = from;
  for (const s of spans.filter((s) => s.start >= from && s.end <= to)) {
    out += `${text.slice(at, s.start)}**${text.slice(s.start, s.end)}**`;
    at = s.end;
  }
  return `${from > 0 ? '…' : ''}${out}${text.slice(at, to)}${to < text.length ? '…' : ''}`;
}

/** Seeded bodies with every kind of whitespace run, headings, long unbroken tokens and words that hold a term. */
function* bodies(count: number, seed = 42, extra: string[] = []): Generator<{ body: string; matches: Set<string> }> {
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const words = ['foo', 'Foo', 'FOO', 'bar', 'foobar', 'x1', 'baz', 'b_foo', 'foo-bar', 'Bar2', 'qux', ...extra];
  const spaces = [' ', ' ', ' ', ' ', '  ', '\n', '\n\n', '\t', ' \n ', '\r\n', '   ', '\f', '\v'];
  for (let n = 0; n < count; n++) {
    let body = random() < 0.3 ? pick(spaces) : '';
    if (random() < 0.2) body += '# A heading\n';
    const length = Math.floor(random() * 400);
    for (let i = 0; i < length; i++) {
      body += pick(words);
      if (random() < 0.02) body += 'x'.repeat(Math.floor(random() * 300));
      // Now and then a run of whitespace longer than a snippet: far apart as written, close once collapsed.
      body += random() < 0.01 ? ' \n'.repeat(Math.floor(random() * 200)) : pick(spaces);
    }
    yield { body, matches: new Set(['foo', 'bar', 'x1', 'zz', 'foobar', 'cafe'].filter(() => random() < 0.5)) };
  }
}

describe('snippets', () => {
  it('give exactly what collapsing and searching the whole body gives, whatever the whitespace', () => {
    const cut = { start: 0, end: 0 };
    const count = scaled(1000, 3000);
    for (const { body, matches } of bodies(count)) {
      const shown = snippet(body, matches);
      expect(shown, JSON.stringify({ body, matches: [...matches] })).to.equal(reference(body, matches));
      if (shown.startsWith('…')) cut.start += 1;
      if (shown.endsWith('…')) cut.end += 1;
    }
    // Most windows leave text out on both sides: the walks from the cluster are what is tested.
    expect(cut.start).to.be.greaterThan(count / 2);
    expect(cut.end).to.be.greaterThan((count * 2) / 3);
  });

  it('give the same with the pattern a query made once for all its pages', () => {
    const made = new Map<string, RegExp>();
    for (const { body, matches } of [...bodies(500, 11), ...bodies(100, 13, ['Café', '知识管理'])]) {
      const key = [...matches].join(' ');
      if (!made.has(key)) made.set(key, wordPattern(matches));
      expect(snippet(body, matches, made.get(key))).to.equal(reference(body, matches));
    }
  });

  it('give the same in text past ASCII, whose words come from the tokenizer', () => {
    for (const { body, matches } of bodies(500, 7, ['Café', 'CAFÉ', 'naïve', '知识管理', 'x\u00a0y'])) {
      expect(snippet(body, matches), JSON.stringify({ body, matches: [...matches] })).to.equal(reference(body, matches));
    }
  });

  it('show short, empty and blank bodies whole', () => {
    for (const body of ['', '   \n\t ', '# Only a heading\n', 'one foo two', '\n\n  foo  \n']) {
      expect(snippet(body, new Set(['foo']))).to.equal(reference(body, new Set(['foo'])));
    }
    expect(snippet('\n\n  foo  \n', new Set(['foo']))).to.equal('**foo**');
  });

  it('start a new cluster at a word 121 characters on, counted as shown', () => {
    // Collapsed, the second foo starts 121 characters after the first (the double spaces and
    // newlines show as one): too far for one window, so the later pair is the densest.
    const body = `foo${' x'.repeat(58)}z  \n\n foo ${'y '.repeat(250)}foo bar foo`;
    const text = body.replace(/\s+/g, ' ');
    expect(text.indexOf('foo', 1)).to.equal(121);
    const shown = snippet(body, new Set(['foo']));
    expect(shown).to.equal(reference(body, new Set(['foo'])));
    expect(shown).to.match(/\*\*foo\*\* bar \*\*foo\*\*$/);
  });

  it('bold whole words in any case and leave words that only contain a term', () => {
    const body = `${'filler '.repeat(100)}The FOO and foo, not foobar or b_foo; Foo.`;
    expect(snippet(body, new Set(['foo']))).to.equal(reference(body, new Set(['foo'])));
    expect(snippet(body, new Set(['foo']))).to.contain('The **FOO** and **foo**, not foobar or b_**foo**; **Foo**.');
  });
});
