import { z } from 'zod';
import { EVENT_KINDS } from '../core/events';
import type { WireEvent } from '../core/wire';
import { LAB_IDS, type LabId } from '../lab/lab-kinds';
import { POLL_STATES, type PollView } from '../poll/poll';

/*
 * A lab's history as a file: exported from a lab, imported again for replay on any machine. The
 * file is untrusted input on the way back in, so every field of every event is checked, and a
 * problem is reported by where it is ("events[3].kind: …"), never thrown.
 */

export const HISTORY_FILE_FORMAT = 'fencing-lab-history';
/**
 * 2: a question's `step` is numbered as every page shows it (from 1); version 1 counted from 0, and
 * is still read (its steps moved up by one).
 */
export const HISTORY_FILE_VERSION = 2;
const READ_VERSIONS: readonly unknown[] = [1, HISTORY_FILE_VERSION];
/** Far more than a long chaos run records, few enough to replay in a browser tab. */
export const MAX_HISTORY_EVENTS = 200_000;
/** About 1 KB per event at the most, so a larger text cannot be a history we would accept. */
export const MAX_HISTORY_FILE_CHARS = MAX_HISTORY_EVENTS * 1_000;

export type HistoryLab = { id: string; kind: LabId; title: string };

export type HistoryFile = {
  format: typeof HISTORY_FILE_FORMAT;
  version: typeof HISTORY_FILE_VERSION;
  exportedAt: string;
  lab: HistoryLab;
  events: WireEvent[];
  /** The questions the trainer asked the room in this run, as the exporting page saw them (tallies once revealed). */
  polls?: HistoryPoll[];
};

/** A question as the file keeps it: its `step` numbered as every page shows it, from 1 (a PollView's counts from 0). */
export type HistoryPoll = PollView;

export type HistoryInput = {
  lab: HistoryLab;
  events: readonly WireEvent[];
  exportedAt: Date;
  polls?: readonly PollView[];
};

export type ParsedHistory = { ok: true; file: HistoryFile } | { ok: false; error: string };

const positiveInt = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    // Before .int(), which also refuses unsafe integers, so that 2 ** 60 reads as too large.
    .max(Number.MAX_SAFE_INTEGER, `${what} is too large`)
    .int(`${what} must be a whole number`)
    .positive(`${what} must be at least 1`);

const text = (what: string) => z.string({ error: `${what} must be text` });

const eventSchema = z.strictObject(
  {
    id: positiveInt('id'),
    lab: text('lab'),
    // JSON has no Infinity or NaN, and zod's numbers refuse them anyway: `at` is always finite here.
    at: z.number({ error: 'at must be a number of ms since the epoch' }),
    actor: text('actor'),
    kind: z.enum(EVENT_KINDS, { error: `kind must be one of: ${EVENT_KINDS.join(', ')}` }),
    resource: text('resource').optional(),
    rowId: positiveInt('rowId').optional(),
    token: positiveInt('token').optional(),
    // A rejection reports the row's last_token, which is 0 for a row never written.
    storedToken: z
      .number({ error: 'storedToken must be a number' })
      .max(Number.MAX_SAFE_INTEGER, 'storedToken is too large')
      .int('storedToken must be a whole number')
      .min(0, 'storedToken must not be negative')
      .optional(),
    outcome: text('outcome').optional(),
    detail: z.record(z.string(), z.unknown(), { error: 'detail must be an object' }),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? undefined : 'an event must be an object') },
);

const count = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(0, `${what} must not be negative`)
    .max(Number.MAX_SAFE_INTEGER, `${what} is too large`);

const pollSchema = z.strictObject(
  {
    id: positiveInt('id'),
    step: count('step'),
    question: text('question'),
    choices: z.array(text('a choice'), { error: 'choices must be a list' }),
    state: z.enum(POLL_STATES, { error: `state must be one of: ${POLL_STATES.join(', ')}` }),
    answered: count('answered'),
    askedAt: z.number({ error: 'askedAt must be a number of ms since the epoch' }),
    tallies: z.array(count('a tally'), { error: 'tallies must be a list' }).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? undefined : 'a question must be an object') },
);

const historySchema = z.strictObject({
  format: z.literal(HISTORY_FILE_FORMAT),
  version: z.union([z.literal(1), z.literal(HISTORY_FILE_VERSION)]),
  exportedAt: z.iso.datetime({ error: 'exportedAt must be an ISO date and time' }),
  lab: z.strictObject(
    {
      id: text('lab id').min(1, 'lab id must not be empty'),
      kind: z.enum(LAB_IDS, { error: `lab kind must be one of: ${LAB_IDS.join(', ')}` }),
      title: text('lab title'),
    },
    { error: 'lab must be an object' },
  ),
  events: z.array(eventSchema, { error: 'events must be a list' }).superRefine((events, ctx) => {
    // Id order is commit order: a file that breaks it was edited or assembled, and would replay wrong.
    for (let i = 1; i < events.length; i += 1) {
      const [before, here] = [events[i - 1], events[i]];
      if (before && here && here.id <= before.id) {
        ctx.addIssue({
          code: 'custom',
          path: [i, 'id'],
          message: `ids must increase strictly, but ${here.id} follows ${before.id}`,
        });
        return;
      }
    }
  }),
  polls: z.array(pollSchema, { error: 'polls must be a list' }).optional(),
});

/** Only the fields of a WireEvent, so that what is exported is exactly what is read back. */
const wireFields = (e: WireEvent): WireEvent => ({
  id: e.id,
  lab: e.lab,
  at: e.at,
  actor: e.actor,
  kind: e.kind,
  ...(e.resource === undefined ? {} : { resource: e.resource }),
  ...(e.rowId === undefined ? {} : { rowId: e.rowId }),
  ...(e.token === undefined ? {} : { token: e.token }),
  ...(e.storedToken === undefined ? {} : { storedToken: e.storedToken }),
  ...(e.outcome === undefined ? {} : { outcome: e.outcome }),
  detail: e.detail,
});

export function toHistoryFile({ lab, events, exportedAt, polls }: HistoryInput): HistoryFile {
  return {
    format: HISTORY_FILE_FORMAT,
    version: HISTORY_FILE_VERSION,
    exportedAt: exportedAt.toISOString(),
    lab: { id: lab.id, kind: lab.kind, title: lab.title },
    events: events.map(wireFields),
    ...(polls && polls.length > 0 ? { polls: polls.map(pollFields) } : {}),
  };
}

/** Only the fields of a PollView, its step numbered as the pages show it: the tallies only if the page had them (revealed). */
const pollFields = (p: PollView): HistoryPoll => ({
  id: p.id,
  step: p.step + 1,
  question: p.question,
  choices: [...p.choices],
  state: p.state,
  answered: p.answered,
  askedAt: p.askedAt,
  ...(p.tallies === undefined ? {} : { tallies: [...p.tallies] }),
});

/** The file's text: indented, so that a person can read (and diff) a history. */
export function serializeHistory(input: HistoryInput): string {
  return `${JSON.stringify(toHistoryFile(input), null, 2)}\n`;
}

/** "events[3].kind" for the path zod reports. */
const whereOf = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (where, key) => (typeof key === 'number' ? `${where}[${key}]` : `${where}${where ? '.' : ''}${String(key)}`),
    '',
  );

const recordOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Reads a history file. Never throws: whatever the text, the answer says what is wrong with it. */
export function parseHistoryFile(input: string): ParsedHistory {
  if (input.length > MAX_HISTORY_FILE_CHARS) {
    return { ok: false, error: `the file is too large (at most ${MAX_HISTORY_FILE_CHARS} characters)` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(input);
  } catch {
    // The parser's words name a position in text nobody sees: say what is wrong instead.
    return { ok: false, error: 'the file is not JSON' };
  }
  // The envelope first, in plain words: someone opening the wrong file should be told so, not
  // read a list of every field that does not match.
  const file = recordOf(raw);
  if (file?.format !== HISTORY_FILE_FORMAT) {
    return { ok: false, error: `not a Fencing Lab history (format must be "${HISTORY_FILE_FORMAT}")` };
  }
  if (!READ_VERSIONS.includes(file.version)) {
    return {
      ok: false,
      error: `version ${JSON.stringify(file.version)} is not supported: this app reads versions 1 and ${HISTORY_FILE_VERSION}`,
    };
  }
  if (Array.isArray(file.events) && file.events.length > MAX_HISTORY_EVENTS) {
    return {
      ok: false,
      error: `too many events: ${file.events.length}, at most ${MAX_HISTORY_EVENTS} can be replayed`,
    };
  }
  const parsed = historySchema.safeParse(raw);
  if (parsed.success) {
    const { version, polls, ...rest } = parsed.data;
    // Read as the current version: a version 1 file's questions counted their steps from 0.
    const upgraded = polls && version === 1 ? polls.map((poll) => ({ ...poll, step: poll.step + 1 })) : polls;
    return { ok: true, file: { ...rest, version: HISTORY_FILE_VERSION, ...(upgraded ? { polls: upgraded } : {}) } };
  }
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const where = whereOf(issue.path);
    return where ? `${where}: ${issue.message}` : issue.message;
  });
  const more = parsed.error.issues.length - problems.length;
  return { ok: false, error: `${problems.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}` };
}
