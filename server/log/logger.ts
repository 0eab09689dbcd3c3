import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/schema.js';

export type { Logger };

/**
 * The server's one logger: JSON lines to stdout (or `destination`, which tests read), at the
 * configured level. Built once at start-up and handed down through `Services`; vault-store
 * gets it as its own small `Log` interface.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  // No pid/hostname on every line; levels by name and times in ISO, for a reader with grep.
  return pino(
    { level, base: undefined, timestamp: stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    destination,
  );
}

/** An error for a log line: its stack only (which includes the message), never its other fields. */
export function errorFields(err: unknown): { err: string } {
  return { err: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}
