import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const BUCKETS = ['sync', 'read', 'write', 'expensive'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** The largest `push_mb` a plans file may give (1 TiB), so the limit in bytes stays an exact integer. */
const MAX_PUSH_MB = 1024 * 1024;
const MIB = 1024 * 1024;

/**
 * A plan: whether REST and MCP are open, `limits` in requests per minute per bucket, and
 * `push_mb`, the largest `git push` in MiB (request body after gzip, and the pack git
 * receives; fractions allowed), and `max_file_bytes`, the largest file one API write takes
 * (`PUT /vault/file`, `write_file`). Both may be left out: a built-in plan's name keeps its
 * built-in value (push: free 16, personal 256, pro 1024 MiB; files: free 10, personal 100,
 * pro 200 MiB), any other plan gets the default plan's.
 */
const planSchema = z
  .object({
    rest: z.boolean(),
    mcp: z.boolean(),
    push_mb: z.number().positive().max(MAX_PUSH_MB).optional(),
    max_file_bytes: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    limits: z
      .object({
        sync: z.number().int().positive(),
        read: z.number().int().positive(),
        write: z.number().int().positive(),
        expensive: z.number().int().positive(),
      })
      .strict(),
  })
  .strict();

export type Plan = z.infer<typeof planSchema> & { push_mb: number; max_file_bytes: number };
export type Plans = Record<string, Plan>;

export const DEFAULT_PLAN = 'personal';

/** Limits are requests per minute, per user, per bucket; `push_mb` is the largest push in MiB. */
export const DEFAULT_PLANS: Plans = {
  free: { rest: false, mcp: false, push_mb: 16, max_file_bytes: 10 * MIB, limits: { sync: 60, read: 60, write: 20, expensive: 5 } },
  personal: { rest: true, mcp: true, push_mb: 256, max_file_bytes: 100 * MIB, limits: { sync: 600, read: 600, write: 120, expensive: 20 } },
  pro: { rest: true, mcp: true, push_mb: 1024, max_file_bytes: 200 * MIB, limits: { sync: 3000, read: 3000, write: 600, expensive: 100 } },
};

/** A plan of the file, with `push_mb` and `max_file_bytes` filled in when the file leaves them out. */
function withSizeLimits(name: string, plan: z.infer<typeof planSchema>): Plan {
  const builtIn = Object.hasOwn(DEFAULT_PLANS, name) ? DEFAULT_PLANS[name] : DEFAULT_PLANS[DEFAULT_PLAN];
  return { ...plan, push_mb: plan.push_mb ?? builtIn.push_mb, max_file_bytes: plan.max_file_bytes ?? builtIn.max_file_bytes };
}

/**
 * Built-in plans, with entries of the plans file replacing or adding plans by name.
 * Returns problems instead of throwing so start-up can list every one of them. The plans
 * returned are copies: changing one (as tests do) leaves the built-in values alone.
 */
export function loadPlans(file: string | undefined): { plans: Plans; problems: string[] } {
  if (!file) return { plans: structuredClone(DEFAULT_PLANS), problems: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return { plans: structuredClone(DEFAULT_PLANS), problems: [`QUIRE_PLANS_FILE ${file}: ${(err as Error).message}`] };
  }
  const parsed = z.record(z.string().min(1), planSchema).safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `QUIRE_PLANS_FILE ${file}: ${i.path.join('.') || '(root)'}: ${i.message}`);
    return { plans: structuredClone(DEFAULT_PLANS), problems };
  }
  const fromFile = Object.entries(parsed.data).map(([name, plan]) => [name, withSizeLimits(name, plan)]);
  return { plans: { ...structuredClone(DEFAULT_PLANS), ...Object.fromEntries(fromFile) }, problems: [] };
}
