import { expect } from 'chai';
import { CollapsedAscii, collapse } from '../../../../vault-store/knowledge/search/collapsed-text.js';
import { snippet } from '../../../../vault-store/knowledge/search/snippet.js';

/**
 * The snippet as first specified, collapsing the whole body and lower-casing it to find the
 * words: the faster one (only the window collapsed, one case-insensitive scan) must give
 * exactly these strings.
 */
function reference(body: string, matches: ReadonlySet<string>): string {
  const text = collapse(body.replace(/^\s*#[^\n]*\n/, ''));
  const lower = text.toLowerCase();
  const alnum = (c: string | undefined) => c !== undefined && /[A-Za-z0-9]/.test(c);
  const spans: { start: number; end: number }[] = [];
  for (const term of matches) {
    for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + 1)) {
      if (!alnum(lower[at - 1]) && !alnum(lower[at + term.length])) spans.push({ start: at, end: at + term.length });
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
function* bodies(count: number): Generator<{ body: string; matches: Set<string> }> {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const words = ['foo', 'Foo', 'FOO', 'bar', 'foobar', 'x1', 'baz', 'b_foo', 'foo-bar', 'Bar2', 'qux'];
  const spaces = [' ', ' ', ' ', ' ', '  ', '\n', '\n\n', '\t', ' \n ', '\r\n', '   ', '\f', '\v'];
  for (let n = 0; n < count; n++) {
    let body = random() < 0.3 ? pick(spaces) : '';
    if (random() < 0.2) body += '# A heading\n';
    const length = Math.floor(random() * 400);
    for (let i = 0; i < length; i++) {
      body += pick(words);
      if (random() < 0.02) body += 'x'.repeat(Math.floor(random() * 300));
      body += pick(spaces);
    }
    yield { body, matches: new Set(['foo', 'bar', 'x1', 'zz', 'foobar'].filter(() => random() < 0.5)) };
  }
}

describe('snippets', () => {
  it('give exactly what collapsing and searching the whole body gives, whatever the whitespace', () => {
    let long = 0;
    for (const { body, matches } of bodies(3000)) {
      expect(snippet(body, matches), JSON.stringify({ body, matches: [...matches] })).to.equal(reference(body, matches));
      if (body.length > 1000) long += 1;
    }
    // Most bodies are long enough to take the mapped path rather than collapsing all.
    expect(long).to.be.greaterThan(1500);
  });

  it('bold whole words in any case and leave words that only contain a term', () => {
    const body = `${'filler '.repeat(100)}The FOO and foo, not foobar or b_foo; Foo.`;
    expect(snippet(body, new Set(['foo']))).to.equal(reference(body, new Set(['foo'])));
    expect(snippet(body, new Set(['foo']))).to.contain('The **FOO** and **foo**, not foobar or b_**foo**; **Foo**.');
  });

  it('map positions and stretches of ASCII text as collapsing it would', () => {
    const raw = ' \tone  two\n\nthree four \r\nfive  ';
    const collapsed = new CollapsedAscii(raw);
    const text = collapse(raw);
    expect(collapsed.length).to.equal(text.length);
    const words = ['one', 'two', 'three', 'four', 'five'];
    expect(collapsed.positions(words.map((w) => raw.indexOf(w)))).to.deep.equal(words.map((w) => text.indexOf(w)));
    for (let from = 0; from <= text.length; from++) {
      for (let to = from; to <= text.length; to++) expect(collapsed.slice(from, to)).to.equal(text.slice(from, to));
    }
  });
});
