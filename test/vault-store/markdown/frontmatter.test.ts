import { expect } from 'chai';
import { MAX_FRONTMATTER_BYTES, readFrontmatter, withFrontmatter } from '../../../vault-store/markdown/frontmatter.js';

const read = (yaml: string, opening = '---') => readFrontmatter(`${opening}\n${yaml}---\nbody\n`);

describe('front-matter', () => {
  it('reads YAML under ---, ---yaml and ---yml, and says where the body starts', () => {
    for (const opening of ['---', '---yaml', '--- YML ']) {
      const page = `${opening}\ntitle: T\n---\nbody\n`;
      const fm = readFrontmatter(page);
      expect(fm).to.deep.equal({ data: { title: 'T' }, bodyStart: page.indexOf('body') });
    }
    expect(readFrontmatter('\uFEFF---\r\na: 1\r\n---  \r\nbody').data).to.deep.equal({ a: 1 });
  });

  it('reads no front-matter without a closing line, after a ---- rule, or when --- is not first', () => {
    for (const page of ['---\ntitle: T\nbody', '----\na: 1\n----\n', 'x\n---\na: 1\n---\n', '---\na: 1\n---x\n']) {
      expect(readFrontmatter(page)).to.deep.equal({ data: {}, bodyStart: 0 });
    }
  });

  it('never runs another language: js, javascript, coffee, json and toml blocks are reported, the body still split off', () => {
    for (const language of ['js', 'javascript', 'coffee', 'json', 'toml', 'JS']) {
      const fm = read('{ title: (globalThis.ran = true, "x") }\n', `---${language}`);
      expect(fm.data).to.deep.equal({});
      expect(fm.error).to.equal(`front-matter language "${language.toLowerCase()}" is not supported; only YAML is read`);
      expect(fm.bodyStart).to.be.above(0);
    }
    expect((globalThis as { ran?: boolean }).ran).to.equal(undefined);
  });

  it('uses the YAML 1.2 core schema: dates, yes/no and octal-looking strings stay what YAML 1.2 says', () => {
    expect(read('date: 2024-01-02\nok: yes\nn: 010\nb: true\nx: ~\nf: 1.5\n').data).to.deep.equal({
      date: '2024-01-02',
      ok: 'yes',
      n: 10,
      b: true,
      x: null,
      f: 1.5,
    });
  });

  it('refuses tags it does not know (js ones, YAML 1.1 ones), a circular alias, list keys and duplicate keys', () => {
    expect(read('f: !!js/function "function () { return 1 }"\n').error).to.match(
      /^front-matter is not valid YAML: Unresolved tag: tag:yaml\.org,2002:js\/function \(line 2\)$/,
    );
    expect(read('a: 1\nf: !foo bar\n').error).to.match(/Unresolved tag: !foo \(line 3\)/);
    // YAML 1.1 types that would come back as a Buffer, a Date, a Set or a Map, not JSON.
    for (const tagged of ['!!binary aGk=', '!!timestamp 2024-01-02', '!!set {x}', '!!omap [{x: 1}]']) {
      expect(read(`v: ${tagged}\n`).error, tagged).to.match(/^front-matter is not valid YAML: Unresolved tag/);
    }
    expect(read('a: &a [*a]\n').error).to.equal('front-matter is nested deeper than 32 levels');
    expect(read('a: 1\nb: 2\na: 3\n').error).to.equal('front-matter is not valid YAML: Map keys must be unique (line 4)');
    expect(read('a: {k: 1, k: 2}\n').error).to.match(/Map keys must be unique/);
    expect(read('a: 1\n? [x, y]\n: b\n').error).to.equal('front-matter is not valid YAML: a key that is not a plain value (line 3)');
  });

  it('refuses an alias bomb, deep nesting, a block over the cap and several documents', () => {
    let bomb = 'a0: &a0 ["lol"]\n';
    for (let i = 1; i <= 9; i++)
      bomb += `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    expect(read(bomb).error).to.equal('front-matter is not valid YAML: Excessive alias count indicates a resource exhaustion attack');
    expect(read(`a: ${'['.repeat(40)}${']'.repeat(40)}\n`).error).to.equal('front-matter is nested deeper than 32 levels');
    expect(read(`a: ${'['.repeat(5_000)}\n`).error).to.equal('front-matter is nested deeper than 32 levels');
    expect(read(`a: "${'x'.repeat(MAX_FRONTMATTER_BYTES)}"\n`).error).to.equal(
      `front-matter is larger than ${MAX_FRONTMATTER_BYTES} bytes and is not read`,
    );
    expect(read(`a: "${'é'.repeat(MAX_FRONTMATTER_BYTES / 2)}"\n`).error).to.match(/larger than/);
    expect(read('a: 1\n...\nb: 2\n').error).to.match(/^front-matter (holds more than one YAML document|is not valid YAML)/);
  });

  it('refuses aliases that expand past the data size limit even under the alias count', () => {
    const big = `big: &b [${Array(40)
      .fill(`"${'x'.repeat(150)}"`)
      .join(', ')}]\n`;
    expect(read(`${big}copies: [${Array(60).fill('*b').join(', ')}]\n`).error).to.match(
      /^front-matter expands to more than \d+ characters/,
    );
  });

  it('is a mapping: a list or a single value at the top is an error, an empty block is {}', () => {
    expect(read('- a\n- b\n').error).to.equal('front-matter is a list, not a mapping of keys to values');
    expect(read('just text\n').error).to.equal('front-matter is a single value, not a mapping of keys to values');
    expect(read('# only a comment\n')).to.deep.equal({ data: {}, bodyStart: '---\n# only a comment\n---\n'.length });
    expect(readFrontmatter('---\n---\nbody').data).to.deep.equal({});
  });

  it('returns JSON-safe data: infinities become null and __proto__ is a plain key', () => {
    const fm = read('n: .inf\nm: [-.inf, .nan]\n__proto__: {polluted: 1}\n');
    expect(JSON.stringify(fm.data)).to.equal('{"n":null,"m":[null,null],"__proto__":{"polluted":1}}');
    expect(Object.getPrototypeOf(fm.data)).to.equal(Object.prototype);
    expect(({} as { polluted?: number }).polluted).to.equal(undefined);
  });

  it('writes front-matter that reads back as the same strings, whatever they look like', () => {
    const data = { title: 'Notes: yes, no\n---\nand more', when: '2024-01-02', flag: 'no', at: '2024-01-02T03:04:05.000Z', n: '010' };
    const page = withFrontmatter(data, 'body\n');
    expect(page.endsWith('---\nbody\n')).to.equal(true);
    expect(readFrontmatter(page)).to.deep.equal({ data, bodyStart: page.length - 'body\n'.length });
  });
});
