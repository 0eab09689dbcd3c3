/**
 * What vault-store needs of a logger, so the domain depends on no logging library: the
 * server passes its own (pino) in, anything else (tests, benchmarks) may leave it out.
 */
export interface Log {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const silentLog: Log = { warn: () => undefined, error: () => undefined };
