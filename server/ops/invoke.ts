import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import { agentAccess } from './agent-gate.js';
import { authorFor, type Credential } from '../auth/credential.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import type { AnyOperation, OpContext, Surface } from './operation.js';

export interface Invocation {
  result: unknown;
  rate: RateState;
}

function invalidInput(error: z.ZodError): QuireError {
  const issue = error.issues[0];
  const field = issue.path.join('.');
  return new QuireError('INVALID_REQUEST', field ? `${field}: ${issue.message}` : issue.message, {
    field: field || undefined,
    issues: error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
  });
}

/** Throws before counting anything when the plan does not include this surface. */
export async function checkPlan(services: Services, credential: Credential, surface: Surface) {
  const user = await services.accounts.requireUser(credential.user);
  const plan = services.config.plans[user.plan];
  if (!plan || !plan[surface]) {
    throw new QuireError('PLAN_REQUIRED', `The ${user.plan} plan does not include ${surface === 'rest' ? 'the REST API' : 'MCP'} access`, {
      plan: user.plan,
    });
  }
  return plan;
}

/**
 * The one door to every operation, for every surface: plan, rate limit, scope, input
 * schema, the agent's permissions, then the handler. A RATE_LIMITED error carries the
 * state so adapters can still report the headers; every other outcome returns it.
 */
export async function invoke(
  services: Services,
  op: AnyOperation,
  credential: Credential,
  surface: Surface,
  raw: unknown,
  onRate?: (rate: RateState) => void,
  progress?: OpContext['progress'],
): Promise<Invocation> {
  const plan = await checkPlan(services, credential, surface);
  const rate = await services.limiter.consume(credential.user, op.bucket, plan);
  onRate?.(rate);
  if (!credential.capabilities.has(op.scope)) {
    const needed = surface === 'mcp' ? `mcp:${op.scope}` : op.scope === 'read' ? 'read' : 'write';
    throw new QuireError('INSUFFICIENT_SCOPE', `${op.name} needs the ${needed} scope`, { required_scope: needed });
  }
  const parsed = op.input.safeParse(raw ?? {});
  if (!parsed.success) throw invalidInput(parsed.error);
  const { agent, visible } = await agentAccess(services.agents, op, credential, parsed.data);
  const vault = await services.vaults.get(credential.user);
  const result = await op.handler(
    {
      user: credential.user,
      credential,
      author: authorFor(credential),
      vault,
      config: services.config,
      services,
      surface,
      agent,
      visible,
      progress,
    },
    parsed.data,
  );
  return { result, rate };
}
