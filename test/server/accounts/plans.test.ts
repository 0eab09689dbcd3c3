import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PLANS, loadPlans } from '../../../server/accounts/plans.js';
import { maxPushBytes } from '../../../server/ops/push.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('plans', () => {
  const dir = tempDir('quire-plans-');
  after(() => dir.cleanup());
  const file = (plans: unknown) => {
    const path = join(dir.path, 'plans.json');
    writeFileSync(path, JSON.stringify(plans));
    return path;
  };
  const limits = { sync: 5, read: 5, write: 5, expensive: 5 };

  it('gives each built-in plan its push limit: free 16 MiB, personal 256 MiB, pro 1 GiB', () => {
    const { plans, problems } = loadPlans(undefined);
    expect(problems).to.deep.equal([]);
    expect(Object.fromEntries(Object.entries(plans).map(([name, plan]) => [name, maxPushBytes(plan)]))).to.deep.equal({
      free: 16 * 1024 * 1024,
      personal: 256 * 1024 * 1024,
      pro: 1024 * 1024 * 1024,
    });
  });

  it('fills push_mb a plans file leaves out: a built-in name keeps its own, a new plan gets the default plan’s', () => {
    const { plans, problems } = loadPlans(
      file({
        free: { rest: true, mcp: false, limits },
        team: { rest: true, mcp: true, limits },
        constructor: { rest: true, mcp: true, limits },
        big: { rest: true, mcp: true, push_mb: 4096, limits },
        tiny: { rest: true, mcp: true, push_mb: 0.5, limits },
      }),
    );
    expect(problems).to.deep.equal([]);
    expect(plans.free).to.deep.equal({ rest: true, mcp: false, push_mb: 16, max_file_bytes: 10 * 1024 * 1024, limits });
    expect(plans.team.push_mb).to.equal(256);
    expect(new Map(Object.entries(plans)).get('constructor')?.push_mb, 'a name Object.prototype has').to.equal(256);
    expect(maxPushBytes(plans.big)).to.equal(4 * 1024 * 1024 * 1024);
    expect(maxPushBytes(plans.tiny)).to.equal(512 * 1024);
    expect(plans.pro.push_mb).to.equal(1024);
  });

  it('lists a push_mb that is not a positive number of MiB (at most 1 TiB) as a problem', () => {
    const { problems } = loadPlans(
      file({
        zero: { rest: true, mcp: true, push_mb: 0, limits },
        text: { rest: true, mcp: true, push_mb: '16', limits },
        huge: { rest: true, mcp: true, push_mb: 2 * 1024 * 1024, limits },
      }),
    );
    expect(problems.map((p) => p.replace(/^QUIRE_PLANS_FILE \S+: /, '').split(':')[0])).to.deep.equal([
      'zero.push_mb',
      'text.push_mb',
      'huge.push_mb',
    ]);
  });

  it('hands out copies, so changing a loaded plan leaves the built-in values alone', () => {
    loadPlans(undefined).plans.personal.push_mb = 1;
    loadPlans(file({ team: { rest: true, mcp: true, limits } })).plans.pro.limits.sync = 1;
    expect(DEFAULT_PLANS.personal.push_mb).to.equal(256);
    expect(DEFAULT_PLANS.pro.limits.sync).to.equal(3000);
  });
});
