import { z } from 'zod';
import { EXPLORE_BOUNDS } from './explore-labs';

/*
 * The Explore page's address (`/labs/<lab>/explore?holders=2&writes=3&renew=1&path=0.2.1`), checked with zod:
 * the bounds as the command line takes them (`renew=1`: careful holders, `--renew`), and a path of indexes into each state's enabled steps
 * (a permalink to a state). Other parameters are not read (the page passes only these); a bad value is told in words.
 */

const MAX_PATH_STEPS = 30;
const MAX_STEP_INDEX = 9;

const whole = (name: string, { min, max, default: fallback }: { min: number; max: number; default: number }) =>
  z
    .string()
    .regex(/^\d{1,2}$/, `${name} is a whole number`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} is at least ${min}`).max(max, `${name} is at most ${max}`))
    .prefault(String(fallback));

export const exploreAddressSchema = z.strictObject({
  holders: whole('holders', EXPLORE_BOUNDS.holders),
  writes: whole('writes', EXPLORE_BOUNDS.writes),
  renew: z
    .enum(['0', '1'], 'renew is 0 or 1')
    .transform((raw) => raw === '1')
    .prefault('0'),
  path: z
    .string()
    .max(MAX_PATH_STEPS * 2)
    .regex(new RegExp(`^(\\d(\\.\\d){0,${MAX_PATH_STEPS - 1}})?$`), 'a path is steps like 0.2.1')
    .transform((raw) => (raw === '' ? [] : raw.split('.').map(Number)))
    .pipe(z.array(z.number().int().min(0).max(MAX_STEP_INDEX)))
    .prefault(''),
});

export type ExploreAddress = z.output<typeof exploreAddressSchema>;

/** The address's search parameters as the page receives them: a repeated one is a mistake, told as one. */
export function parseExploreAddress(
  params: Record<string, string | string[] | undefined>,
): { ok: true; address: ExploreAddress } | { ok: false; error: string } {
  const single: Record<string, string> = {};
  for (const key of ['holders', 'writes', 'renew', 'path'] as const) {
    const value = params[key];
    if (Array.isArray(value)) return { ok: false, error: `${key} is given more than once` };
    if (value !== undefined) single[key] = value;
  }
  const parsed = exploreAddressSchema.safeParse(single);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join('; ') };
  return { ok: true, address: parsed.data };
}

/** The address of a state: the bounds, and the path to it. */
export function exploreHref(lab: string, address: ExploreAddress): string {
  const renew = address.renew ? '&renew=1' : '';
  const path = address.path.length > 0 ? `&path=${address.path.join('.')}` : '';
  return `/labs/${lab}/explore?holders=${address.holders}&writes=${address.writes}${renew}${path}`;
}

/** The bounds an address explores. */
export function boundsOf(address: ExploreAddress): { holders: number; writes: number; renew?: true } {
  return { holders: address.holders, writes: address.writes, ...(address.renew ? { renew: true as const } : {}) };
}
