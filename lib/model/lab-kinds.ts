/** The labs: the fenced one, and one per classic mistake, each on a row of its own. */

export const LAB_IDS = [
  'fenced',
  'no-fencing',
  'read-check-write',
  'token-as-text',
  'per-process-counter',
  'bypass',
  'same-token-takeover',
  'drifting-clock',
  'drifting-clock-fenced',
  'delayed-packet',
  'delayed-packet-unfenced',
  'failover',
  'your-guard',
] as const;

export type LabId = (typeof LAB_IDS)[number];

export type LabDefinition = {
  id: LabId;
  title: string;
  /** What the lab does differently, in one sentence. */
  summary: string;
  /** How it breaks (empty for the fenced lab). */
  failure: string;
  /** The row the lab's workers write: protected_rows for the fenced lab, unguarded_rows otherwise. */
  table: 'protected_rows' | 'unguarded_rows';
  rowId: number;
  resource: string;
};

export const LABS: Record<LabId, LabDefinition> = {
  fenced: {
    id: 'fenced',
    title: 'Fenced',
    summary: 'Every write presents its token; one atomic UPDATE … WHERE last_token <= token decides.',
    failure: '',
    table: 'protected_rows',
    rowId: 1,
    resource: 'lab/fenced',
  },
  'no-fencing': {
    id: 'no-fencing',
    title: 'No fencing',
    summary: 'The lease alone: writes are a plain UPDATE with no token check.',
    failure: "lost update: the paused holder's late write overwrites the new holder's value",
    table: 'unguarded_rows',
    rowId: 1,
    resource: 'lab/no-fencing',
  },
  'read-check-write': {
    id: 'read-check-write',
    title: 'Read, check, write',
    summary: 'SELECT last_token, compare in the app, then an UPDATE without the check.',
    failure: 'a pause between the check and the write lets the stale write through',
    table: 'unguarded_rows',
    rowId: 2,
    resource: 'lab/read-check-write',
  },
  'token-as-text': {
    id: 'token-as-text',
    title: 'Token compared as text',
    summary: "The token is compared as a string: fine until it gains a digit, then '10' < '9'.",
    failure: 'the newer holder (token 10) is rejected as stale and the older one (token 9) wins',
    table: 'unguarded_rows',
    rowId: 3,
    resource: 'lab/token-as-text',
  },
  'per-process-counter': {
    id: 'per-process-counter',
    title: 'Per-process counter',
    summary: 'Each worker numbers its grants with an in-memory counter that starts again at 1 in every process.',
    failure: "two holders present the same token, so the stale holder's write wins",
    table: 'unguarded_rows',
    rowId: 4,
    resource: 'lab/per-process-counter',
  },
  bypass: {
    id: 'bypass',
    title: 'A path that bypasses the guard',
    summary: 'Regular writes are fenced, but the catch-up path for an overdue write skips the token check.',
    failure: 'the paused holder wakes up overdue, takes the catch-up path, and overwrites the newer value',
    table: 'unguarded_rows',
    rowId: 5,
    resource: 'lab/bypass',
  },
  'same-token-takeover': {
    id: 'same-token-takeover',
    title: 'A takeover without a new token',
    summary:
      "Fresh grants mint a token, but taking over a lease that expired under another holder hands over the old holder's token; writes are fenced with <=.",
    failure: "two holders present the same token, so the stale holder's late write passes the <= check",
    table: 'unguarded_rows',
    rowId: 6,
    resource: 'lab/same-token-takeover',
  },
  'drifting-clock': {
    id: 'drifting-clock',
    title: 'A drifting clock',
    summary:
      "A worker judges its lease by its own clock, which runs slow by a setting; the database's clock says when the lease really ends. Writes are not fenced.",
    failure:
      "the slow-clock holder believes it still holds the lease after the database's expiry, and its write overwrites the new holder's value",
    table: 'unguarded_rows',
    rowId: 7,
    resource: 'lab/drifting-clock',
  },
  'drifting-clock-fenced': {
    id: 'drifting-clock-fenced',
    title: 'A drifting clock, fenced',
    summary:
      'The same slow-clock worker, judging its lease by its own clock; every write presents its token and the row refuses one older than the last it took.',
    failure: '',
    table: 'unguarded_rows',
    rowId: 12,
    resource: 'lab/drifting-clock-fenced',
  },
  'delayed-packet': {
    id: 'delayed-packet',
    title: 'A delayed packet, fenced',
    summary:
      "Nothing freezes: a proxy between the worker and PostgreSQL holds the holder's write on the wire while its lease runs out. The write is fenced.",
    failure: '',
    table: 'unguarded_rows',
    rowId: 10,
    resource: 'lab/delayed-packet',
  },
  'delayed-packet-unfenced': {
    id: 'delayed-packet-unfenced',
    title: 'A delayed packet, unfenced',
    summary:
      "Nothing freezes: a proxy between the worker and PostgreSQL holds the holder's write on the wire while its lease runs out. No token check.",
    failure: "the held write arrives after the new holder's and overwrites it: a lost update",
    table: 'unguarded_rows',
    rowId: 11,
    resource: 'lab/delayed-packet-unfenced',
  },
  failover: {
    id: 'failover',
    title: 'Failover',
    summary:
      'The lease table, the token sequence and the row on a primary and a streaming standby of their own; the primary is killed and the standby promoted. Asynchronous or synchronous replication, a setting of each start.',
    failure:
      "with asynchronous replication, the primary's acknowledged grant and write are gone after the promotion, and the old holder's late write is accepted",
    // Its row, lease and sequence live on the pair (lib/supervisor/failover/): row 8 of unguarded_rows
    // only reserves its place among the labs' rows (0025_failover_events.sql), and nothing writes it.
    table: 'unguarded_rows',
    rowId: 8,
    resource: 'lab/failover',
  },
  'your-guard': {
    id: 'your-guard',
    title: 'Your guard',
    summary:
      'You write the UPDATE that protects the row ($1 value, $2 token, $3 row id); the lab runs it as a role that can touch only this lab’s table, and attacks it with the pause story across a digit boundary (token 9, then 10).',
    // Not broken on purpose: as right or as wrong as the statement its trainee writes.
    failure: '',
    // A private lab only (0033_your_guard_lab.sql): each lab gets its row from unguarded_row_ids,
    // mirrored from its own guarded_row. Row 9 only reserves the kind's place.
    table: 'unguarded_rows',
    rowId: 9,
    resource: 'lab/your-guard',
  },
};

/**
 * The walkthrough to watch after this one's: its side-by-side counterpart (the same story fenced, or
 * unfenced), or for the pause's broken labs the fenced lab, and for the fenced lab one that breaks.
 */
export function compareWith(kind: LabId): { lead: string; lab: LabId; words: string } {
  switch (kind) {
    case 'fenced':
      return { lead: 'Now watch it break:', lab: 'no-fencing', words: 'the same pause without fencing' };
    case 'drifting-clock':
      return { lead: 'Compare:', lab: 'drifting-clock-fenced', words: 'the same slow clock, fenced' };
    case 'drifting-clock-fenced':
      return { lead: 'Compare:', lab: 'drifting-clock', words: 'the same slow clock without fencing' };
    case 'delayed-packet':
      return { lead: 'Compare:', lab: 'delayed-packet-unfenced', words: 'the same delayed packet without fencing' };
    case 'delayed-packet-unfenced':
      return { lead: 'Compare:', lab: 'delayed-packet', words: 'the same delayed packet, fenced' };
    default:
      return { lead: 'Compare:', lab: 'fenced', words: 'the pause with fencing' };
  }
}

/** The labs whose workers may read a clock that runs slow (a setting per worker): the drifting clock, fenced or not. */
export function hasDriftingClock(kind: LabId): kind is 'drifting-clock' | 'drifting-clock-fenced' {
  return kind === 'drifting-clock' || kind === 'drifting-clock-fenced';
}

/**
 * The labs whose workers the supervisor runs: every lab but the failover lab, whose holders are the
 * server's own sessions on a pair of its own (lib/supervisor/failover/). No worker, no private lab,
 * no chaos run or pause scenario there.
 */
export const WORKER_LAB_IDS = LAB_IDS.filter(
  (id): id is Exclude<LabId, 'failover' | 'your-guard'> => id !== 'failover' && id !== 'your-guard',
);
export type WorkerLabId = (typeof WORKER_LAB_IDS)[number];

export function isWorkerLabId(value: unknown): value is WorkerLabId {
  return isLabId(value) && value !== 'failover' && value !== 'your-guard';
}

/**
 * The kinds a browser may open as a private lab: every worker lab, and "your guard", which is private
 * only (a trainee's own statement guards its row: 0033_your_guard_lab.sql). The shared labs are
 * WORKER_LAB_IDS (and the failover lab).
 */
export const PRIVATE_LAB_KINDS = [...WORKER_LAB_IDS, 'your-guard'] as const satisfies readonly LabId[];
export type PrivateLabKind = (typeof PRIVATE_LAB_KINDS)[number];

/** Whether a lab id names a shared lab (a shared lab is named after its kind). */
export function isSharedLabId(value: unknown): value is LabId {
  return isLabId(value) && value !== 'your-guard';
}

/** The labs whose workers reach PostgreSQL through a proxy their app server owns, which can hold a write. */
export function hasPacketProxy(kind: LabId): kind is 'delayed-packet' | 'delayed-packet-unfenced' {
  return kind === 'delayed-packet' || kind === 'delayed-packet-unfenced';
}

/** The statement text the proxy holds at: the delayed-packet labs' write (0023_delayed_packet_labs.sql). */
export const DELAYED_WRITE_MARKER = 'worker_delayed_packet_write';

export function isLabId(value: unknown): value is LabId {
  return typeof value === 'string' && (LAB_IDS as readonly string[]).includes(value);
}

/** The labs whose writes are fenced (the row's token refuses a stale write): the others are broken on purpose. */
export function isFencedKind(kind: LabId): boolean {
  return kind === 'fenced' || kind === 'delayed-packet' || kind === 'drifting-clock-fenced';
}
