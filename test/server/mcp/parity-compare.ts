/**
 * How the parity test compares a REST body with the MCP `structuredContent` of the same call.
 * Each surface has its own user and vault, seeded alike, and runs the same cases in the same
 * order (one vault cannot serve both: the REST write would change what the MCP call sees).
 * The two bodies must be deep-equal except for the values below, and only where named.
 */

/**
 * Values made per vault: each REST value pairs with one MCP value for the whole run, and the
 * MCP side is translated to its REST partner (inside strings too) before comparing. So the
 * commit a write returns must be the head that `recent_changes` reports later, and the same
 * position in both histories (the test checks that against `git log`).
 */
const PAIRED: Record<string, string> = {
  commit: 'a commit id hashes its time; the two vaults commit the same change at different moments',
  head: 'a commit id (see commit)',
  indexed_commit: 'a commit id (see commit)',
  cursor: 'the change feed cursor is a commit id (see commit)',
  base_commit: 'a commit id (see commit)',
  changed_in: 'a commit id (see commit)',
  version_commit: 'a commit id (see commit)',
  id: 'proposal ids and API key ids are random',
  credential: 'the id of the key that made a proposal (see id)',
  user: 'one user per surface, so that each has its own vault',
};

/** A capture stamps its time into the page, so the page's blob id differs too. */
const pairedHash = (key: string, parent: Record<string, unknown>) =>
  key === 'hash' && typeof parent.path === 'string' && parent.path.startsWith('capture/');

/** Values that change with every call: only their type is compared. */
const PER_CALL: Record<string, string> = {
  ms: 'how long the call took',
  remaining: 'rate-limit counters move with every call of the user (REST also sends them as headers)',
  reset_seconds: 'rate-limit windows move with the clock',
  disk_bytes: 'git compresses commits with different times to different sizes',
  queued_writes: 'index saves and the watcher enter the write queue in the background',
  external_edits: 'the file watcher runs on its own schedule',
  watcher: 'the file watcher runs on its own schedule',
};

/** The clock at a write (`updated_at`, `created_at`, a change's `at`, a capture's `captured_at`). */
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class Pairing {
  private readonly mcpToRest = new Map<string, string>();
  private readonly restToMcp = new Map<string, string>();

  /** Records that `mcp` stands for `rest`; throws when either already stands for another value. */
  pair(what: string, rest: string, mcp: string): void {
    const before = this.mcpToRest.get(mcp);
    const partner = this.restToMcp.get(rest);
    if ((before ?? rest) !== rest || (partner ?? mcp) !== mcp) {
      throw new Error(
        `${what}: REST ${rest} ↔ MCP ${mcp}, but earlier REST ${rest} ↔ MCP ${partner ?? '-'} and MCP ${mcp} ↔ REST ${before ?? '-'}`,
      );
    }
    this.mcpToRest.set(mcp, rest);
    this.restToMcp.set(rest, mcp);
  }

  /** Pairs the values at PAIRED keys found at the same place in both bodies. */
  collect(rest: unknown, mcp: unknown): void {
    if (Array.isArray(rest) && Array.isArray(mcp)) rest.forEach((r, i) => this.collect(r, mcp[i]));
    if (!isObject(rest) || !isObject(mcp)) return;
    for (const [key, r] of Object.entries(rest)) {
      const m = mcp[key];
      if ((Object.hasOwn(PAIRED, key) || pairedHash(key, rest)) && typeof r === 'string' && typeof m === 'string') this.pair(key, r, m);
      else if (!Object.hasOwn(PER_CALL, key)) this.collect(r, m);
    }
  }

  /** A string from the MCP side with every paired value replaced by its REST partner. */
  translate(text: string): string {
    let out = text;
    for (const [mcp, rest] of this.mcpToRest) if (mcp !== rest) out = out.replaceAll(mcp, rest);
    return out;
  }
}

/** A body with per-call values reduced to their type and times to `<time>`; `translate` for the MCP side. */
export function comparable(value: unknown, translate: (s: string) => string = (s) => s): unknown {
  if (typeof value === 'string') return translate(value).replace(TIME, '<time>');
  if (Array.isArray(value)) return value.map((v) => comparable(v, translate));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, Object.hasOwn(PER_CALL, k) ? `<${typeof v}>` : comparable(v, translate)]),
  );
}
