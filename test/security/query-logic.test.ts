import { expect } from 'chai';
import { Knowledge } from '../../vault-store/knowledge/knowledge.js';
import type { QueryInput } from '../../vault-store/knowledge/query/run-query.js';
import { tempDir } from '../helpers/temp-dir.js';
import { tempVault } from '../helpers/temp-vault.js';

/**
 * A `where` is user input run on the server: JsonLogic must stay data. json-logic-js looks
 * up `var` names with plain property access and calls operators by name, so the attacks are
 * reaching a function through a name, calling one through an operator, and growing a value
 * per list item until the process runs out of memory.
 */
describe('attack: a query reaching code or memory through its where', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let indexDir: { path: string; cleanup: () => void };
  let knowledge: Knowledge;
  const refused = async (where: unknown): Promise<string> => {
    const err = await knowledge.query({ where, limit: 10 } as QueryInput, () => true, 2000).catch((e: unknown) => e);
    expect(err, JSON.stringify(where)).to.have.property('code', 'INVALID_REQUEST');
    return (err as Error).message;
  };

  before(async () => {
    ctx = await tempVault({
      'a.md':
        '---\nlist: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]\n__proto__: {polluted: yes}\nconstructor: plain\n---\n# A\n',
    });
    indexDir = tempDir('quire-index-');
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
  });
  after(async () => {
    await knowledge.close();
    ctx.cleanup();
    indexDir.cleanup();
  });

  it('refuses names that reach constructors and prototypes, however spelled', async () => {
    for (const name of ['constructor', 'tags.constructor.constructor', 'title.__proto__', 'list.prototype', 'CONSTRUCTOR']) {
      expect(await refused({ '!!': { var: name } })).to.contain('not a field name');
    }
    expect(await refused({ missing: ['constructor'] })).to.contain('not a field name');
    expect(await refused({ var: [{ cat: ['constr', 'uctor'] }] })).to.contain('literal field name');
    expect(await refused({ missing: [{ merge: ['__proto__'] }] })).to.contain('literal field names');
  });

  it('has no operator that calls a method, logs, or names a path into the operator table', async () => {
    for (const op of ['method', 'log', 'var.constructor', 'merge.call', 'hasOwnProperty', '__proto__', 'toString']) {
      expect(await refused({ [op]: [{ var: 'title' }, 'x'] })).to.contain(`unknown operator "${op}"`);
    }
  });

  it('refuses expressions that grow a value per item or multiply loops', async () => {
    const doubling = { reduce: [{ var: 'list' }, { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] };
    expect(await refused({ '>': [{ var: ['length'] }, { reduce: doubling.reduce }] })).to.contain('only once');
    const strings = { reduce: [{ var: 'list' }, { cat: [{ var: 'accumulator' }, { var: 'accumulator.x' }] }, 'ab'] };
    expect(await refused(strings)).to.contain('only once');
    const nested = { some: [[1, 2, 3], { some: [[1, 2, 3], { map: [[1, 2, 3], 1] }] }] };
    expect(await refused(nested)).to.contain('inside another iterating operator');
  });

  it('keeps a "__proto__" front-matter key out of rows and out of Object.prototype', async () => {
    const { rows } = await knowledge.query({ limit: 10 }, () => true, 2000);
    expect(rows[0]).to.not.have.own.property('__proto__');
    expect(rows[0]).to.not.have.property('polluted');
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    const found = await knowledge.query({ where: { '==': [{ var: 'polluted' }, 'yes'] }, limit: 10 }, () => true, 2000);
    expect(found.total).to.equal(0);
  });

  it('still runs the one-level forms people use', async () => {
    const sum = await knowledge.query(
      { where: { '>': [{ reduce: [{ var: 'list' }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 0] }, 800] }, limit: 10 },
      () => true,
      2000,
    );
    expect(sum.total).to.equal(1);
  });
});
