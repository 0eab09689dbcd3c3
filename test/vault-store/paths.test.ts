import { expect } from 'chai';
import { normalizePagePath, normalizePrefix } from '../../vault-store/paths.js';

describe('page paths', () => {
  it('adds .md, keeps folders, and normalizes to NFC', () => {
    expect(normalizePagePath('notes/idea')).to.equal('notes/idea.md');
    expect(normalizePagePath('notes/idea.md')).to.equal('notes/idea.md');
    expect(normalizePagePath('Cafe\u0301')).to.equal('Caf\u00e9.md');
    expect(normalizePagePath('日本語/メモ')).to.equal('日本語/メモ.md');
  });

  for (const [why, input] of [
    ['empty', ''], ['absolute', '/a.md'], ['..', '../a.md'], ['. segment', 'a/./b'], ['empty segment', 'a//b'],
    ['backslash', 'a\\b'], ['NUL', 'a\0b'], ['newline', 'a\nb'], ['DEL', 'a\u007fb'], ['.git', '.git/HEAD'],
    ['dot folder', 'x/.obsidian/y'], ['segment over 255 bytes', `${'é'.repeat(128)}`], ['path over 1024 bytes', 'abcdefgh/'.repeat(114) + 'x'],
  ] as const) {
    it(`refuses ${why}`, () => {
      expect(() => normalizePagePath(input)).to.throw().with.property('code', 'INVALID_PATH');
    });
  }

  it('accepts a segment of exactly 255 bytes', () => {
    expect(normalizePagePath(`${'a'.repeat(252)}.md`)).to.have.length(255);
  });

  it('turns folder prefixes into "dir/" form so "a/" never matches "ab/"', () => {
    expect(normalizePrefix('')).to.equal('');
    expect(normalizePrefix('projects')).to.equal('projects/');
    expect(normalizePrefix('projects/')).to.equal('projects/');
    expect(() => normalizePrefix('../x')).to.throw().with.property('code', 'INVALID_PATH');
  });
});
