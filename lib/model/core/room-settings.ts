import { z } from 'zod';

/*
 * The room's settings that have a form (docs/running-a-room.md, Settings) as one schema: the port, the
 * trainer key's length, the numeric limits, and the host names and addresses (where the server listens,
 * the names it answers to, its reverse proxies, where people's worker lines reach PostgreSQL). `npm start` checks them before it starts anything and
 * refuses a value it cannot use, naming the setting, what it must be and what it got: a mistyped limit
 * must not fall back to its default in silence, nor fail the first request that reads it. Parsed once
 * (parseRoomSettings) into one typed object, with each default (settingDefaults): unset or empty means
 * the default. Every module takes the object (lib/config/room-settings.ts); none reads the environment.
 */

const MAX_LIMIT = 999_999;

// No trimming: the modules that read these at run time take the value as it is (a space would pass
// here and fail there), so a value is usable only if it is usable as written.
function wholeNumber(name: string, min: number, max = MAX_LIMIT) {
  const what = `${name} must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), what)
    .transform(Number)
    .refine((value) => value >= min && value <= max, what);
}

function positiveNumber(name: string, unit: string) {
  const what = `${name} must be a positive number of ${unit}`;
  return z
    .string()
    .regex(/^\d*\.?\d+$/, what)
    .transform(Number)
    .refine((value) => value > 0 && Number.isFinite(value), what);
}

/** A host name, or an IPv4 or IPv6 address (without brackets). */
const hostOrAddress = z.union([z.hostname(), z.ipv4(), z.ipv6()]);

/** `name`, `name:port`, `[v6]` or `[v6]:port`: a host the server answers to, as a browser's Host names it. */
const hostWithPort = z.string().refine((entry) => {
  const parts = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(entry);
  if (!parts) return hostOrAddress.safeParse(entry).success && entry.includes(':'); // a bare IPv6 address
  const host = parts[1] ?? parts[2] ?? '';
  const port = parts[3] === undefined ? 1 : Number(parts[3]);
  return (parts[1] ? z.ipv6() : hostOrAddress).safeParse(host).success && port >= 1 && port <= 65_535;
});

/** One value: a host name or an address, as written. */
function host(name: string) {
  // An IPv6 address may come in brackets, as a URL's host name gives it (the launcher's DATABASE_URL host).
  return z
    .string()
    .refine(
      (value) => hostOrAddress.safeParse(value.replace(/^\[(.*)\]$/, '$1')).success,
      `${name} must be a host name or an IP address`,
    );
}

/** A comma-separated list: each entry trimmed, an empty one skipped, each one `entry`. */
function list(name: string, what: string, entry: z.ZodType<string>) {
  return z.string().transform((raw, ctx) => {
    const entries = raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    const bad = entries.filter((item) => !entry.safeParse(item).success);
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${name} must be ${what}, comma-separated: ${bad.map((item) => JSON.stringify(item)).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not`,
      });
      return z.NEVER;
    }
    return entries;
  });
}

/**
 * Private labs open at once in the room (every app server on the database), unless
 * FENCING_LAB_MAX_PRIVATE_LABS says otherwise: two for each of sixty trainees.
 */
export const DEFAULT_MAX_PRIVATE_LABS = 120;
/** Private labs one client address may open per hour, unless FENCING_LAB_OPENS_PER_ADDRESS says otherwise. */
export const DEFAULT_OPENS_PER_ADDRESS = 12;

/** A key chosen by hand must be long enough that guessing it (a few tries a second) is hopeless. */
export const MIN_TRAINER_KEY_CHARS = 12;

const SETTINGS = {
  PORT: wholeNumber('PORT', 1, 65_535),
  FENCING_LAB_TRAINER_KEY: z
    .string()
    .trim()
    .superRefine((key, ctx) => {
      if (key.length >= MIN_TRAINER_KEY_CHARS) return;
      ctx.addIssue({
        code: 'custom',
        message: `FENCING_LAB_TRAINER_KEY must be at least ${MIN_TRAINER_KEY_CHARS} characters (it has ${key.length}): anyone who can reach the server may guess at it; or leave it unset for a random key`,
      });
    }),
  FENCING_LAB_IDLE_MINUTES: positiveNumber('FENCING_LAB_IDLE_MINUTES', 'minutes'),
  FENCING_LAB_SHARED_IDLE_MINUTES: positiveNumber('FENCING_LAB_SHARED_IDLE_MINUTES', 'minutes'),
  FENCING_LAB_RETENTION_HOURS: positiveNumber('FENCING_LAB_RETENTION_HOURS', 'hours'),
  FENCING_LAB_MAX_PRIVATE_LABS: wholeNumber('FENCING_LAB_MAX_PRIVATE_LABS', 1),
  FENCING_LAB_OPENS_PER_ADDRESS: wholeNumber('FENCING_LAB_OPENS_PER_ADDRESS', 1),
  FENCING_LAB_MAX_FEEDS_PER_ADDRESS: wholeNumber('FENCING_LAB_MAX_FEEDS_PER_ADDRESS', 1),
  FENCING_LAB_MAX_FEEDS: wholeNumber('FENCING_LAB_MAX_FEEDS', 1),
  FENCING_LAB_MAX_GUARD_ATTACKS: wholeNumber('FENCING_LAB_MAX_GUARD_ATTACKS', 1, 64),
  FENCING_LAB_GUARD_ATTACKS_PER_MINUTE: wholeNumber('FENCING_LAB_GUARD_ATTACKS_PER_MINUTE', 1),
  FENCING_LAB_GUARD_REFUSALS_PER_MINUTE: wholeNumber('FENCING_LAB_GUARD_REFUSALS_PER_MINUTE', 1),
  FENCING_LAB_WARM_WORKERS: wholeNumber('FENCING_LAB_WARM_WORKERS', 0, 8),
  HOST: host('HOST'),
  FENCING_LAB_ALLOWED_HOSTS: list('FENCING_LAB_ALLOWED_HOSTS', 'host names (each may end in :port)', hostWithPort),
  // Read by the launcher's preload too (lib/server/peer-address.cjs, which cannot take this object):
  // checked here, so that `npm start` refuses a list it would read as no proxy at all.
  FENCING_LAB_TRUSTED_PROXIES: list(
    'FENCING_LAB_TRUSTED_PROXIES',
    'IP addresses',
    z.string().refine((entry) => z.union([z.ipv4(), z.ipv6()]).safeParse(entry).success),
  ),
  FENCING_LAB_WORKER_HOST: host('FENCING_LAB_WORKER_HOST'),
} as const;

/**
 * The room's settings as every module takes them (lib/config/room-settings.ts reads them once from the
 * environment): each one a number, its default where it was unset or empty.
 */
export type RoomSettings = {
  port: number;
  /** Unset: the launcher makes one up and sets it (a server started alone makes one too). */
  trainerKey: string | undefined;
  idleMinutes: number;
  sharedIdleMinutes: number;
  retentionHours: number;
  maxPrivateLabs: number;
  opensPerAddress: number;
  maxFeedsPerAddress: number;
  maxFeeds: number;
  maxGuardAttacks: number;
  guardAttacksPerMinute: number;
  guardRefusalsPerMinute: number;
  warmWorkers: number;
  /** The address the web app listens on (HOST). */
  listenHost: string;
  /** More host names (each may carry a port) the server answers to. */
  allowedHosts: string[];
  /** The reverse proxies' addresses (the launcher's preload reads them; here for the check and the record). */
  trustedProxies: string[];
  /** Where people's worker lines reach PostgreSQL (the launcher sets it beyond loopback); unset, the database URL's host. */
  workerHost: string | undefined;
};

/** The machine facts some defaults follow (the guard queue's and the warm pool's size). */
export type MachineFacts = { cpus: number };

/** Every setting's default, where it has one of its own; the docs' Settings table says the same. */
export function settingDefaults({ cpus }: MachineFacts): Omit<RoomSettings, 'trainerKey' | 'workerHost'> {
  return {
    port: 3000,
    listenHost: '127.0.0.1',
    allowedHosts: [],
    trustedProxies: [],
    idleMinutes: 15,
    sharedIdleMinutes: 15,
    retentionHours: 24,
    maxPrivateLabs: DEFAULT_MAX_PRIVATE_LABS,
    opensPerAddress: DEFAULT_OPENS_PER_ADDRESS,
    maxFeedsPerAddress: 24,
    maxFeeds: 400,
    // Two jobs per CPU, at most 4. bench/README.md, 2026-12-03, 30 trainees submitting within a minute to one
    // server on this 2-CPU machine: 2 at a time, verdicts p95 34.0 s; 4, 20.9 s; 6, 20.8 s with a shared lab's
    // paint p99 over 100 ms. At most 4: an attack runs up to 6 workers at once (its story's stale writers and B),
    // and a server's private labs share 32 (lib/model/lab/lab-limits.ts); an attack refused a worker would fail.
    maxGuardAttacks: Math.min(4, 2 * cpus),
    guardAttacksPerMinute: 6,
    guardRefusalsPerMinute: 10,
    warmWorkers: Math.min(2, cpus),
  };
}

const FIELD_OF: Record<keyof typeof SETTINGS, keyof RoomSettings> = {
  PORT: 'port',
  FENCING_LAB_TRAINER_KEY: 'trainerKey',
  FENCING_LAB_IDLE_MINUTES: 'idleMinutes',
  FENCING_LAB_SHARED_IDLE_MINUTES: 'sharedIdleMinutes',
  FENCING_LAB_RETENTION_HOURS: 'retentionHours',
  FENCING_LAB_MAX_PRIVATE_LABS: 'maxPrivateLabs',
  FENCING_LAB_OPENS_PER_ADDRESS: 'opensPerAddress',
  FENCING_LAB_MAX_FEEDS_PER_ADDRESS: 'maxFeedsPerAddress',
  FENCING_LAB_MAX_FEEDS: 'maxFeeds',
  FENCING_LAB_MAX_GUARD_ATTACKS: 'maxGuardAttacks',
  FENCING_LAB_GUARD_ATTACKS_PER_MINUTE: 'guardAttacksPerMinute',
  FENCING_LAB_GUARD_REFUSALS_PER_MINUTE: 'guardRefusalsPerMinute',
  FENCING_LAB_WARM_WORKERS: 'warmWorkers',
  HOST: 'listenHost',
  FENCING_LAB_ALLOWED_HOSTS: 'allowedHosts',
  FENCING_LAB_TRUSTED_PROXIES: 'trustedProxies',
  FENCING_LAB_WORKER_HOST: 'workerHost',
};

/**
 * The room's settings in `env`, parsed once by one schema: the typed object, and what is wrong (one
 * sentence a setting, as settingsProblems). A setting with a problem is given its default in the
 * object, which a caller must not use: the launcher refuses to start, lib/config refuses to read.
 */
export function parseRoomSettings(
  env: Readonly<Record<string, string | undefined>>,
  machine: MachineFacts,
): { settings: RoomSettings; problems: string[] } {
  const settings: RoomSettings = { ...settingDefaults(machine), trainerKey: undefined, workerHost: undefined };
  const problems = settingsProblems(env);
  for (const name of CHECKED_SETTINGS) {
    const raw = env[name];
    if (raw === undefined || raw === '' || (name === 'FENCING_LAB_TRAINER_KEY' && raw.trim() === '')) continue;
    const parsed = SETTINGS[name].safeParse(raw);
    if (parsed.success) Object.assign(settings, { [FIELD_OF[name]]: parsed.data });
  }
  return { settings, problems };
}

/** The settings this schema checks, by name. */
export const CHECKED_SETTINGS = Object.keys(SETTINGS) as (keyof typeof SETTINGS)[];

/**
 * What is wrong with the room's numeric settings in `env`, one sentence each ("FENCING_LAB_MAX_FEEDS must
 * be a whole number from 1 to 999999 (got "lots")"); empty when every one is unset, empty or usable as written.
 */
export function settingsProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  for (const name of CHECKED_SETTINGS) {
    const raw = env[name];
    // Empty is unset, as every reader takes it; the trainer key alone is trimmed, by every reader.
    if (raw === undefined || raw === '' || (name === 'FENCING_LAB_TRAINER_KEY' && raw.trim() === '')) continue;
    const parsed = SETTINGS[name].safeParse(raw);
    if (!parsed.success) {
      const why = parsed.error.issues[0]?.message ?? `${name} is not usable`;
      // A secret is never echoed back.
      problems.push(name === 'FENCING_LAB_TRAINER_KEY' ? why : `${why} (got ${JSON.stringify(raw)})`);
    }
  }
  return problems;
}
