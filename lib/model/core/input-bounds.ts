/*
 * The one set of bounds on what a client sends: the forms' zod schemas (lib/model/lab/lab-inputs.ts)
 * read them here, and so does the database. db/apply-functions.ts writes WORKER_BOUNDS into
 * `fl_bound(name)` (db/functions/fl_bound.sql) at every start, which the worker's functions call, so
 * a trainee holding the worker line meets the same limits as the Start form (issue 33 item 5). Pure,
 * without zod: the browser's controls read it too.
 */

/** Every number the worker line may send, and what a worker may store, as the forms allow it. */
export const WORKER_BOUNDS = {
  /** A worker's name, in characters (its other rules: WORKER_NAME_PATTERN). */
  worker_name_max_chars: 40,
  /** A lease's TTL, asked for at every grant and renewal (the Start form's lease TTL). */
  lease_ttl_ms_min: 500,
  lease_ttl_ms_max: 60_000,
  /** The Start form's renew and write intervals (kept in a worker's settings). */
  renew_every_ms_min: 100,
  renew_every_ms_max: 30_000,
  write_every_ms_min: 100,
  write_every_ms_max: 60_000,
  /** The delayed-packet labs' client timeout. */
  retry_after_ms_min: 200,
  retry_after_ms_max: 60_000,
  /** The drifting-clock labs' clock: 0 to 90 % slow. */
  clock_slow_percent_max: 90,
  /** A pause, in seconds (the Pause form; a trainer's command carries it to the worker). */
  pause_seconds_max: 60,
  /**
   * The value a worker writes: its name and a count, or the your-guard lab's write value (as long as
   * the attack's probe values, lib/model/guard/guard-probes.ts MAX_PROBE_VALUE_CHARS, read from here).
   */
  write_value_max_chars: 100,
  /** A worker's settings as it joins, JSON (the servers show them and may restart from them). */
  worker_settings_max_bytes: 1_000,
  /** Which server run started a worker and its pid, JSON (worker_record_origin). */
  worker_origin_max_bytes: 500,
  /**
   * An event's detail as a worker records it, JSON. The largest our workers send is a start's: 192
   * bytes in a chaos run; at most about 1.3 kB (its settings, at most 1000 bytes, its id, its server
   * and a reason). 4 kB leaves room; it was 20000 bytes.
   */
  event_detail_max_bytes: 4_000,
  /**
   * The events one worker (a name in a lab) records itself, worker_record_event: a burst of 40, then
   * 20 a second. Ours send at most one `write_sent` per write (every 100 ms at the fastest, a retry
   * more in the delayed-packet labs) and two per pause: at most 11 in any second of a chaos run.
   */
  worker_event_burst: 40,
  worker_events_per_second: 20,
  /**
   * Its grants, renewals, releases and writes (each records an event): a burst of 100, then 50 a
   * second. At the Start form's fastest a holder renews and writes 10 times a second each; a worker
   * waiting for the lease asks 20 times a second.
   */
  worker_call_burst: 100,
  worker_calls_per_second: 50,
  /**
   * The workers one person's worker line runs at once (its 4 connections: a lease loop and a listener
   * each): what it records and calls in a lab, under however many names, is bounded by that many
   * workers' budgets (a fresh name came with a fresh burst: issue 33 review).
   */
  worker_line_workers: 2,
  /**
   * The names one person's worker line may join a lab under, all told: each is a row the lab keeps
   * and a lane on its timeline; joining under a fresh name for every run left about 150 rows in 2 s
   * (issue 33 review). A name it used before is joined again.
   */
  worker_line_names_per_lab: 8,
  /**
   * Not a bound: the version of the worker protocol (docs/protocol.md) worker_join speaks. A client
   * names it in its join settings ("protocol": 1, absent meaning 1); another is refused in words.
   */
  worker_protocol_version: 1,
} as const;

/** The worker protocol's version (docs/protocol.md), as worker_join checks it. */
export const WORKER_PROTOCOL_VERSION = WORKER_BOUNDS.worker_protocol_version;

export type WorkerBoundName = keyof typeof WORKER_BOUNDS;

/** A worker's name: 1 to 40 characters, of ASCII letters and digits, space, _ . - (issue 33 item 4). */
export const WORKER_NAME_MAX_CHARS = WORKER_BOUNDS.worker_name_max_chars;

/** The name rule, as a JavaScript pattern; db/functions/fl_worker_name_refusal.sql says it the same way. */
export const WORKER_NAME_PATTERN = /^[A-Za-z0-9 _.-]+$/;
/** The words both the form and worker_join refuse a name in. */
export const WORKER_NAME_WORDS = {
  letters: 'a worker name is letters and digits of ASCII, space, _ . -',
  length: `a worker name is 1 to ${WORKER_NAME_MAX_CHARS} characters`,
  spaces: 'a worker name has no leading, trailing or double spaces',
  workerId: 'names like w1 are kept for worker ids',
} as const;
