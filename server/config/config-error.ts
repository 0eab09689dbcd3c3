/**
 * Its own module so that the CLI can tell it apart without loading the config schema (zod,
 * plans): `quire sync` never reads the server's configuration.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}
