/**
 * Preloaded into the scale benches' server child (`node --expose-gc --import`): SIGUSR2
 * runs two full GCs, so "steady RSS" is measured without start-up garbage and without a
 * hook in the server. Twice: after one forced GC the RSS still holds freed start-up garbage.
 * The line it prints tells the bench when they are done (seconds on a heap of gigabytes).
 */
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  process.stdout.write('bench: gc done\n');
});
