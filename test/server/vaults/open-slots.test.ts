import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { OpenSlots } from '../../../server/vaults/open-slots.js';

describe('OpenSlots', () => {
  it('runs at most its size at once, the waiting ones in arrival order, and frees a slot when a task fails', async () => {
    const slots = new OpenSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) =>
      slots.run(async () => {
        started.push(n);
        most = Math.max(most, ++running);
        await sleep(10 + (n % 3) * 5);
        running -= 1;
        if (n === 1) throw new Error('open failed');
        return n;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(task));
    expect(most).to.equal(2);
    expect(started).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(await slots.run(async () => 'free again')).to.equal('free again');
  });
});
