import { z } from 'zod';
import type { ArgumentRefusalCode, PaymentPlanRequestArgs, PaymentPlanRequestKind } from './payment-plan-contract';

/**
 * The arguments of the payment plan's requests (updates and the older signals), checked with zod
 * like a request body. Pure and deterministic, so the workflow's update validators use it; the
 * activity checks signal arguments with it too. Updates are strict (an unknown field is refused,
 * naming it); signals keep ignoring unknown fields as they always did.
 *
 * Built on first use, not at module load: every workflow instantiates this module (workflows/lazy-schema.ts).
 */
function shapes(): Record<PaymentPlanRequestKind, Shape> {
  const ppayId = z
    .string()
    .max(64)
    .regex(/^ppay_[a-zA-Z0-9]+$/, 'must be a payment id (ppay_...)');
  const pmId = z
    .string()
    .max(64)
    .regex(/^pm_[a-zA-Z0-9]+$/, 'must be a payment method id (pm_...)');
  const common = {
    /** Who asked (recorded in the payment's resolution): the API sends `api`, the CLI `support-cli`. */
    source: z.string().min(1).max(40).optional(),
    /** Any string; the outcome is recorded under it in the `state` query's `requests`. */
    request_id: z.string().min(1).max(200).optional(),
  };
  const resolution = {
    outcome: z.enum(['approved', 'declined']).optional(),
    payment_method: pmId.optional(),
    external: z.boolean().optional(),
  };

  return {
    resolveTerminalPayment: { payment_id: ppayId, ...resolution, ...common },
    resolveDeposit: { ...resolution, ...common },
    cancelTerminalPayment: { payment_id: ppayId, ...common },
    cancelDeposit: { ...common },
    cancelPlan: { reason: z.string().min(1).max(500).optional(), ...common },
  };
}

type Shape = Record<string, z.ZodType>;

function checkResolutionFields(args: PaymentPlanRequestArgs, ctx: z.RefinementCtx): void {
  if (args.payment_method !== undefined && args.external) {
    ctx.addIssue({ code: 'custom', path: ['external'], message: 'give either external or payment_method, not both' });
  }
  if (args.outcome === 'declined' && (args.external || args.payment_method !== undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [args.external ? 'external' : 'payment_method'],
      message: 'only with outcome approved',
    });
  }
}

let built: Record<PaymentPlanRequestKind, Shape> | undefined;
const schemas = new Map<string, z.ZodType>();
function schemaOf(request: PaymentPlanRequestKind, strict: boolean): z.ZodType {
  const key = `${request}:${strict}`;
  let schema = schemas.get(key);
  if (!schema) {
    const shape = (built ??= shapes())[request];
    const object = strict ? z.strictObject(shape) : z.object(shape);
    schema = request.startsWith('resolve')
      ? object.superRefine((args, ctx) => checkResolutionFields(args as PaymentPlanRequestArgs, ctx))
      : object;
    schemas.set(key, schema);
  }
  return schema;
}

/** Why an argument is refused: the field at fault (`param`), and the code the API answers with. */
export interface RequestArgsIssue {
  code: ArgumentRefusalCode;
  param: string;
  message: string;
}

export type ParsedRequestArgs = { ok: true; args: PaymentPlanRequestArgs } | { ok: false; issue: RequestArgsIssue };

/** Checks the argument of `request`; no argument (null, undefined) counts as `{}`. */
export function parseRequestArgs(
  request: PaymentPlanRequestKind,
  args: unknown,
  options: { strict: boolean },
): ParsedRequestArgs {
  const schema = schemaOf(request, options.strict);
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { ok: true, args: parsed.data as PaymentPlanRequestArgs };
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const param = issue.keys[0] ?? '';
    return {
      ok: false,
      issue: { code: 'parameter_unknown', param, message: `Unknown field '${param}' in the ${request} argument.` },
    };
  }
  const param = issue.path.join('.');
  const missing =
    issue.code === 'invalid_type' && (args as Record<string, unknown> | null)?.[param] === undefined && param !== '';
  return {
    ok: false,
    issue: {
      code: missing ? 'parameter_missing' : 'parameter_invalid',
      param,
      message: param
        ? `Invalid ${request} argument '${param}': ${issue.message}`
        : `The ${request} argument must be a JSON object.`,
    },
  };
}
