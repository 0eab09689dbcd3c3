import { expect } from 'chai';
import { canonicalDate } from '../../../../vault-store/knowledge/query/comparable.js';
import { passes, prepareWhere } from '../../../../vault-store/knowledge/query/where.js';

const same = (s: string) => s;
const refusal = (where: unknown): string => {
  try {
    prepareWhere(where, same);
  } catch (err) {
    expect(err).to.have.property('code', 'INVALID_REQUEST');
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('where', () => {
  it('names the unknown operator and where it is', () => {
    expect(refusal({ and: [{ '==': [1, 1] }, { regex: ['a', 'b'] }] })).to.equal('where.and[1].regex: unknown operator "regex"');
    expect(refusal({ log: 'x' })).to.contain('unknown operator "log"');
    expect(refusal({ method: [{ var: 'title' }, 'toUpperCase'] })).to.contain('unknown operator "method"');
  });

  it('refuses more than 32 levels and more than 1,000 nodes', () => {
    let deep: unknown = true;
    for (let i = 0; i < 20; i++) deep = { '!': [deep] };
    expect(refusal(deep)).to.contain('nested deeper than 32 levels');
    expect(refusal({ in: [{ var: 'x' }, Array.from({ length: 1001 }, (_, i) => i)] })).to.contain('more than 1000 nodes');
  });

  it('refuses names that step out of the data, and var names that are not literal', () => {
    expect(refusal({ var: 'tags.constructor' })).to.contain('not a field name');
    expect(refusal({ var: '__proto__' })).to.contain('not a field name');
    expect(refusal({ var: [{ cat: ['con', 'structor'] }] })).to.contain('literal field name');
  });

  it('refuses an iterating operator inside another, and reading the accumulator twice', () => {
    expect(refusal({ map: [{ var: 'a' }, { map: [{ var: '' }, 1] }] })).to.contain('inside another iterating operator');
    const doubling = { reduce: [{ var: 'list' }, { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] };
    expect(refusal(doubling)).to.contain('only once');
  });

  it('lists the fields it reads, case-folded, and none read per item', () => {
    const where = prepareWhere(
      { and: [{ '==': [{ var: 'Due Date' }, 1] }, { some: [{ var: 'tags' }, { '==': [{ var: '' }, 'x'] }] }] },
      same,
    );
    expect([...(where.reads as Set<string>)]).to.deep.equal(['due date', 'tags']);
    expect(prepareWhere({ '!!': { var: '' } }, same).reads).to.equal('all');
    expect(passes(where, { 'due date': 1, tags: ['x'] })).to.equal(true);
  });

  it('rewrites string constants, never field names', () => {
    const where = prepareWhere({ '<': [{ var: '2026-01-01' }, '2026-01-01'] }, (s) => canonicalDate(s) ?? s);
    expect(where.logic).to.deep.equal({ '<': [{ var: ['2026-01-01'] }, '2026-01-01T00:00:00.000Z'] });
  });

  it('gives one form to every spelling of a date and refuses impossible dates', () => {
    expect(canonicalDate('2026-12-01')).to.equal('2026-12-01T00:00:00.000Z');
    expect(canonicalDate('2026-12-01 10:30')).to.equal('2026-12-01T10:30:00.000Z');
    expect(canonicalDate('2026-12-01T10:30:00+0200')).to.equal('2026-12-01T08:30:00.000Z');
    expect(canonicalDate('2026-02-30')).to.equal(undefined);
    expect(canonicalDate('2026-12-01T25:00')).to.equal(undefined);
    expect(canonicalDate('soon')).to.equal(undefined);
  });
});
