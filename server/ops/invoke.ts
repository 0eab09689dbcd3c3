import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import { agentAccess } from './agent-gate.js';
import { authorFor, type Credential } from '../auth/credential.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import type { VaultLease } from '../vaults/user-vault.js';
import type { AnyOperation, OpContext, Surface } from './operation.js';
import { isRawResult, type RawResult } from './raw-result.js';

export interface Invocation {
  result: unknown;
  rate: RateState;
}

export function invalidInput(error: z.ZodError): QuireError {
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

/** What an adapter knows of the request beyond its input, handed on to the handler. */
export interface InvokeOptions extends Pick<OpContext, 'progress' | 'body' | 'signal' | 'recheck'> {
  onRate?: (rate: RateState) => void;
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
  options: InvokeOptions = {},
): Promise<Invocation> {
  const { onRate } = options;
  const plan = await checkPlan(services, credential, surface);
  const parsed = op.input.safeParse(raw ?? {});
  const bucket = op.bucketFor && parsed.success ? op.bucketFor(parsed.data) : op.bucket;
  const rate = await services.limiter.consume(credential.user, bucket, plan);
  onRate?.(rate);
  if (!credential.capabilities.has(op.scope)) {
    const needed = surface === 'mcp' ? `mcp:${op.scope}` : op.scope === 'read' ? 'read' : 'write';
    throw new QuireError('INSUFFICIENT_SCOPE', `${op.name} needs the ${needed} scope`, { required_scope: needed });
  }
  if (!parsed.success) throw invalidInput(parsed.error);
  const { agent, visible } = await agentAccess(services.agents, op, credential, parsed.data);
  // Held until the result is done, so the vault is not closed under the handler (see VaultRegistry).
  const lease = await services.vaults.acquire(credential.user);
  let result: unknown;
  const handler = surface === 'rest' && op.restHandler ? op.restHandler : op.handler;
  try {
    result = await handler(
      {
        user: credential.user,
        credential,
        author: authorFor(credential),
        vault: lease.workspace,
        config: services.config,
        services,
        surface,
        agent,
        visible,
        progress: options.progress,
        body: options.body,
        recheck: options.recheck,
        // Read when a handler asks: a REST request makes its signal only then (see rest/router.ts).
        get signal() {
          return options.signal;
        },
      },
      parsed.data,
    );
  } catch (err) {
    lease.release();
    throw err;
  }
  return { result: releasedWhenDone(result, lease), rate };
}

/** A download still reads the vault while it is sent: its lease ends with the sending. */
function releasedWhenDone(result: unknown, lease: VaultLease): unknown {
  if (!isRawResult(result)) {
    lease.release();
    return result;
  }
  return {
    ...result,
    send: (res: ServerResponse, req: IncomingMessage) => result.send(res, req).finally(() => lease.release()),
  } satisfies RawResult;
}
