import { expect } from 'chai';
import { checkPortablePath, isPagePath, normalizePagePath, normalizePrefix, unportableReason } from '../../vault-store/paths.js';

describe('page paths', () => {
  it('adds .md, keeps folders, and normalizes to NFC', () => {
    expect(normalizePagePath('notes/idea')).to.equal('notes/idea.md');
    expect(normalizePagePath('notes/idea.md')).to.equal('notes/idea.md');
    expect(normalizePagePath('Cafe\u0301')).to.equal('Caf\u00e9.md');
    expect(normalizePagePath('日本語/メモ')).to.equal('日本語/メモ.md');
  });

  for (const [why, input] of [
    ['empty', ''],
    ['absolute', '/a.md'],
    ['..', '../a.md'],
    ['. segment', 'a/./b'],
    ['empty segment', 'a//b'],
    ['backslash', 'a\\b'],
    ['NUL', 'a\0b'],
    ['newline', 'a\nb'],
    ['DEL', 'a\u007fb'],
    ['.git', '.git/HEAD'],
    ['dot folder', 'x/.obsidian/y'],
    ['segment over 255 bytes', `${'é'.repeat(128)}`],
    ['path over 1024 bytes', 'abcdefgh/'.repeat(114) + 'x'],
  ] as const) {
    it(`refuses ${why}`, () => {
      expect(() => normalizePagePath(input))
        .to.throw()
        .with.property('code', 'INVALID_PATH');
    });
  }

  // Names Windows refuses: a clone of the vault there would fail to check them out.
  for (const [input, reason] of [
    ['CON.md', /device name on Windows/],
    ['con', /device name/],
    ['notes/aux.md', /device name/],
    ['Nul.txt.md', /device name/],
    ['COM1', /device name/],
    ['lpt9.md', /device name/],
    ['COM¹', /device name/],
    ['lpt³.md', /device name/],
    ['prn/x.md', /device name/],
    ['con .txt.md', /device name/],
    ['CONIN$', /device name/],
    ['a:b.md', /":" is not allowed/],
    ['a<b', /"<" is not allowed/],
    ['a>b', /">"/],
    ['say "hi"', /"""/],
    ['a|b', /"\|"/],
    ['why?', /"\?"/],
    ['a*', /"\*"/],
    ['trailing./x.md', /may not end in a dot or a space/],
    ['folder /x.md', /end in a dot or a space/],
    ['x .md', /end in a dot or a space/],
    ['x.', /end in a dot or a space/],
    ['x..md', /end in a dot or a space/],
  ] as const) {
    it(`refuses to create ${JSON.stringify(input)}, saying why`, () => {
      expect(() => checkPortablePath(normalizePagePath(input)))
        .to.throw(reason)
        .with.property('code', 'INVALID_PATH');
    });
  }

  it('accepts names that only resemble Windows device names or forbidden endings', () => {
    for (const input of [
      'console.md',
      'CONS.md',
      'com10.md',
      'lpt.md',
      'nullable/aux-notes.md',
      'x.con.md',
      'a - b.md',
      'v1.2 notes.md',
      ' leading.md',
    ]) {
      expect(normalizePagePath(input), input).to.equal(input);
      expect(() => checkPortablePath(input), input).not.to.throw();
    }
  });

  it('still addresses an existing page or folder Windows refuses, so it can be read, moved or deleted', () => {
    for (const path of ['a:b.md', 'CON.md', 'aux/x.md', 'x .md']) {
      expect(isPagePath(path), path).to.equal(true);
      expect(unportableReason(path), path).to.be.a('string');
    }
    for (const prefix of ['nul/', 'a:b', 'folder.', 'folder ']) expect(normalizePrefix(prefix), prefix).to.match(/\/$/);
  });

  it('accepts a segment of exactly 255 bytes', () => {
    expect(normalizePagePath(`${'a'.repeat(252)}.md`)).to.have.length(255);
  });

  it('turns folder prefixes into "dir/" form so "a/" never matches "ab/"', () => {
    expect(normalizePrefix('')).to.equal('');
    expect(normalizePrefix('projects')).to.equal('projects/');
    expect(normalizePrefix('projects/')).to.equal('projects/');
    expect(() => normalizePrefix('../x'))
      .to.throw()
      .with.property('code', 'INVALID_PATH');
  });
});
