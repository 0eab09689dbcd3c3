/**
 * CPU milliseconds of `run`, best of three, so a busy machine (other test files run in
 * parallel) does not decide: a quadratic pass takes seconds, not the 100 ms the tests allow.
 */
export function bestMs(run: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}
