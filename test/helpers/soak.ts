/**
 * `npm run test:soak` sets QUIRE_SOAK=1: the same convergence, crash and generated-input
 * tests then run at full length. `npm test` runs them short, to stay within its time budget
 * (the generated-input loops a third as long). Files named `*.soak.test.ts` (long by nature:
 * the Obsidian Git loop, the server killed mid-push) run in `npm run test:soak` only.
 */
export const SOAK = process.env.QUIRE_SOAK === '1';

export function scaled(short: number, soak: number): number {
  return SOAK ? soak : short;
}
