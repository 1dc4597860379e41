import { z } from 'zod';
import type { LabId } from '../lab/lab-kinds';
import { EXPLORE_BOUNDS, type ExploreLab, exploreLabOf, failoverLab } from './explore-labs';

/*
 * The Explore page's address (`/labs/<lab>/explore?holders=2&writes=3&renew=1&path=0.2.1`), checked with zod:
 * the bounds as the command line takes them (`renew=1`: careful holders, `--renew`; `sync=1`: the failover
 * lab with synchronous replication, `--sync`), and a path of indexes into each state's enabled steps
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
  sync: z
    .enum(['0', '1'], 'sync is 0 or 1')
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
  for (const key of ['holders', 'writes', 'renew', 'sync', 'path'] as const) {
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
  const sync = address.sync ? '&sync=1' : '';
  const path = address.path.length > 0 ? `&path=${address.path.join('.')}` : '';
  return `/labs/${lab}/explore?holders=${address.holders}&writes=${address.writes}${renew}${sync}${path}`;
}

/** The bounds an address explores. */
export function boundsOf(address: ExploreAddress): { holders: number; writes: number; renew?: true } {
  return { holders: address.holders, writes: address.writes, ...(address.renew ? { renew: true as const } : {}) };
}

/**
 * The lab an address explores, or why it cannot: `sync=1` is the failover lab's (its replication), and
 * the failover lab's holders do not renew their leases (the command line refuses the same, lib/explore/args.ts).
 */
/** The failover lab's bounds on the Explore page: each explored in a few seconds on the database. */
export const FAILOVER_PAGE_SIZES = [
  { holders: 2, writes: 2 },
  { holders: 2, writes: 3 },
  { holders: 3, writes: 1 },
] as const;

export function explorableAt(
  kind: LabId,
  address: Pick<ExploreAddress, 'holders' | 'writes' | 'renew' | 'sync'>,
): ExploreLab | { refusal: string } {
  const lab = exploreLabOf(kind);
  if ('refusal' in lab) return lab;
  const failover = lab.write.table === 'fo_rows';
  if (address.sync && !failover) return { refusal: `${lab.title} has no replication to make synchronous (sync=1)` };
  if (address.renew && failover) return { refusal: `${lab.title}: its holders do not renew their leases (renew=1)` };
  if (failover && !FAILOVER_PAGE_SIZES.some((s) => s.holders === address.holders && s.writes === address.writes)) {
    return {
      refusal: `${lab.title} is explored here at ${FAILOVER_PAGE_SIZES.map((s) => `${s.holders} × ${s.writes}`).join(', ')}: its pair's steps multiply the interleavings, and 3 holders × 2 writes takes one to two minutes on the database (npm run explore -- --lab failover --holders 3 --writes 2)`,
    };
  }
  return address.sync ? failoverLab(kind, 'sync') : lab;
}
