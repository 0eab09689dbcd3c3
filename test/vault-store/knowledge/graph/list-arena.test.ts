import { expect } from 'chai';
import { ListArena } from '../../../../vault-store/knowledge/graph/list-arena.js';
import { scaled } from '../../../helpers/soak.js';
import { seeded } from './seeded.js';

function contents(arena: ListArena, owner: number): number[] {
  return Array.from({ length: arena.length(owner) }, (_, i) => arena.get(owner, i));
}

describe('ListArena', () => {
  it('keeps every list equal to a plain array through inserts, removals, resets, compactions and trims', () => {
    const random = seeded(11);
    const arena = new ListArena();
    const model: number[][] = [];
    const owners = 3000;
    const steps = scaled(20_000, 60_000);
    for (let step = 0; step < steps; step++) {
      const owner = Math.floor(random() ** 2 * owners);
      const list = (model[owner] ??= []);
      const r = random();
      if (r < 0.6) {
        const value = Math.floor(random() * 50);
        const times = 1 + Math.floor(random() ** 4 * 6);
        arena.insertSorted(owner, value, times);
        const at = list.findIndex((v) => v > value);
        list.splice(at < 0 ? list.length : at, 0, ...Array<number>(times).fill(value));
      } else if (r < 0.85 && list.length > 0) {
        const value = list[Math.floor(random() * list.length)];
        arena.removeAll(owner, value);
        model[owner] = list.filter((v) => v !== value);
      } else if (r < 0.98) {
        // Sorted, so that later inserts into this list keep a meaning.
        const values = Array.from({ length: Math.floor(random() * 12) }, () => Math.floor(random() * 1000)).sort((a, b) => a - b);
        arena.reset(owner, values.length, values);
        model[owner] = values;
      } else {
        arena.trim();
      }
      if (step % (steps / 4) === 0) for (let o = 0; o < owners; o++) expect(contents(arena, o)).to.deep.equal(model[o] ?? []);
    }
    for (let o = 0; o < owners; o++) expect(contents(arena, o)).to.deep.equal(model[o] ?? []);
  });

  it('reclaims the space of lists that moved or were released', () => {
    const arena = new ListArena();
    for (let round = 0; round < 50; round++) {
      for (let owner = 0; owner < 500; owner++)
        arena.reset(
          owner,
          20,
          Array.from({ length: 20 }, (_, i) => round + i),
        );
    }
    // 500 lists of 20 live at a time; without reuse of the space, 50 rounds would hold 50 times that.
    expect(arena.memoryBytes()).to.be.below(500 * 20 * 4 * 4 + 64 * 1024);
    arena.trim();
    expect(contents(arena, 499)).to.deep.equal(Array.from({ length: 20 }, (_, i) => 49 + i));
    expect(arena.memoryBytes()).to.be.at.most(500 * 20 * 4 + 500 * 12);
  });

  it('grows by an eighth, not double, once trimmed: the first edit after a build keeps its memory near what the build left', () => {
    const arena = new ListArena();
    const owners = 200_000;
    for (let o = 0; o < owners; o++) arena.reset(o, 8, [1, 2, 3, 4, 5, 6, 7, 8]);
    arena.trim();
    const trimmed = arena.memoryBytes();
    arena.insertSorted(7, 9);
    expect(contents(arena, 7)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(arena.memoryBytes()).to.be.within(trimmed + 1, trimmed * 1.2);
  });
});
