import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const BUCKETS = ['sync', 'read', 'write', 'expensive'] as const;
export type Bucket = (typeof BUCKETS)[number];

const planSchema = z
  .object({
    rest: z.boolean(),
    mcp: z.boolean(),
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

export type Plan = z.infer<typeof planSchema>;
export type Plans = Record<string, Plan>;

export const DEFAULT_PLAN = 'personal';

/** Limits are requests per minute, per user, per bucket. */
export const DEFAULT_PLANS: Plans = {
  free: { rest: false, mcp: false, limits: { sync: 60, read: 60, write: 20, expensive: 5 } },
  personal: { rest: true, mcp: true, limits: { sync: 600, read: 600, write: 120, expensive: 20 } },
  pro: { rest: true, mcp: true, limits: { sync: 3000, read: 3000, write: 600, expensive: 100 } },
};

/**
 * Built-in plans, with entries of the plans file replacing or adding plans by name.
 * Returns problems instead of throwing so start-up can list every one of them.
 */
export function loadPlans(file: string | undefined): { plans: Plans; problems: string[] } {
  if (!file) return { plans: { ...DEFAULT_PLANS }, problems: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return { plans: { ...DEFAULT_PLANS }, problems: [`QUIRE_PLANS_FILE ${file}: ${(err as Error).message}`] };
  }
  const parsed = z.record(z.string().min(1), planSchema).safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `QUIRE_PLANS_FILE ${file}: ${i.path.join('.') || '(root)'}: ${i.message}`);
    return { plans: { ...DEFAULT_PLANS }, problems };
  }
  return { plans: { ...DEFAULT_PLANS, ...parsed.data }, problems: [] };
}
