import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const BUCKETS = ['sync', 'read', 'write', 'expensive'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** The largest `push_mb` a plans file may give (1 TiB), so the limit in bytes stays an exact integer. */
const MAX_PUSH_MB = 1024 * 1024;

/**
 * A plan: whether REST and MCP are open, `limits` in requests per minute per bucket, and
 * `push_mb`, the largest `git push` in MiB (request body after gzip, and the pack git
 * receives; fractions allowed). `push_mb` may be left out: a built-in plan's name keeps its
 * built-in value (free 16, personal 256, pro 1024), any other plan gets the default plan's.
 */
const planSchema = z
  .object({
    rest: z.boolean(),
    mcp: z.boolean(),
    push_mb: z.number().positive().max(MAX_PUSH_MB).optional(),
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

export type Plan = z.infer<typeof planSchema> & { push_mb: number };
export type Plans = Record<string, Plan>;

export const DEFAULT_PLAN = 'personal';

/** Limits are requests per minute, per user, per bucket; `push_mb` is the largest push in MiB. */
export const DEFAULT_PLANS: Plans = {
  free: { rest: false, mcp: false, push_mb: 16, limits: { sync: 60, read: 60, write: 20, expensive: 5 } },
  personal: { rest: true, mcp: true, push_mb: 256, limits: { sync: 600, read: 600, write: 120, expensive: 20 } },
  pro: { rest: true, mcp: true, push_mb: 1024, limits: { sync: 3000, read: 3000, write: 600, expensive: 100 } },
};

/** A plan of the file, with `push_mb` filled in when the file leaves it out. */
function withPushLimit(name: string, plan: z.infer<typeof planSchema>): Plan {
  const builtIn = Object.hasOwn(DEFAULT_PLANS, name) ? DEFAULT_PLANS[name] : DEFAULT_PLANS[DEFAULT_PLAN];
  return { ...plan, push_mb: plan.push_mb ?? builtIn.push_mb };
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
  const fromFile = Object.entries(parsed.data).map(([name, plan]) => [name, withPushLimit(name, plan)]);
  return { plans: { ...structuredClone(DEFAULT_PLANS), ...Object.fromEntries(fromFile) }, problems: [] };
}
