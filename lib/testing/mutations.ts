/*
 * The planted bugs of `npm run test:mutations` (lib/testing/run-mutations.ts): known mistakes in
 * the fencing core, each an exact text replacement that must match exactly once in its file, so that
 * a mutant cannot rot silently when the code moves (the runner fails when a pattern is not found, or
 * found twice). `tests`: the node test files (run-node-tests filters) that should catch it, tried in
 * order until one fails.
 */

export type Replacement = { file: string; from: string; to: string };

export type Mutant = {
  name: string;
  /** What the planted bug does, in a sentence (printed, and listed in docs/testing.md). */
  what: string;
  replacements: Replacement[];
  tests: string[];
};

// The functions as the database runs them (db/functions): a bug planted in an old migration would be
// replaced by the function's file at every migrate.
const FENCED_WRITE_SQL = 'db/functions/fl_fenced_write.sql';
const ACQUIRE_SQL = 'db/functions/fl_acquire_lease.sql';
const RENEW_SQL = 'db/functions/fl_renew_lease.sql';
const TRIGGER_SQL = 'db/functions/protected_rows_enforce_token.sql';
const FENCED_WRITE_PREDICATE = "   WHERE p.id = p_row_id AND fl_may_write('fenced', p.last_token, p_token)\n";
const FENCED_POLICY = "    WHEN 'fenced' THEN p_stored <= p_token\n";
const STALE_CHECK = '  IF NEW.last_token < OLD.last_token THEN\n';

export const MUTANTS: Mutant[] = [
  {
    name: 'fenced-write-predicate-dropped',
    what: "the fenced write's UPDATE (fl_fenced_write) loses `AND fl_may_write('fenced', …)`: only the trigger stands between a stale token and the row",
    replacements: [{ file: FENCED_WRITE_SQL, from: FENCED_WRITE_PREDICATE, to: '   WHERE p.id = p_row_id\n' }],
    tests: ['db/fenced-write.test', 'db/core-properties'],
  },
  {
    name: 'fenced-write-lt',
    what: "the fenced predicate (fl_may_write) `p_stored <= p_token` becomes `<`: a holder's second write, or a retry, under its current token is rejected as stale",
    replacements: [
      {
        file: 'db/functions/fl_may_write.sql',
        from: FENCED_POLICY,
        to: "    WHEN 'fenced' THEN p_stored < p_token\n",
      },
    ],
    tests: ['db/fenced-write.test', 'db/core-properties'],
  },
  {
    name: 'trigger-stale-check-disabled',
    what: 'the trigger on protected_rows (protected_rows_enforce_token) no longer refuses an UPDATE that lowers last_token: a write that bypasses the fenced write can go back',
    replacements: [{ file: TRIGGER_SQL, from: STALE_CHECK, to: '  IF false THEN\n' }],
    tests: ['db/fenced-write-trigger', 'db/core-properties'],
  },
  {
    name: 'trigger-lt-becomes-le',
    what: "the trigger's `NEW.last_token < OLD.last_token` becomes `<=`: the trigger refuses the current token again, the `<=` policy broken underneath the fenced write",
    replacements: [
      {
        file: TRIGGER_SQL,
        from: STALE_CHECK,
        to: '  IF NEW.last_token <= OLD.last_token THEN\n',
      },
    ],
    tests: ['db/fenced-write.test', 'db/core-properties'],
  },
  {
    name: 'takeover-keeps-token',
    what: 'fl_acquire_lease hands the new holder the old token when it takes over an expired lease',
    replacements: [
      {
        file: ACQUIRE_SQL,
        from: '    UPDATE leases l SET holder = p_holder, token = next_token, acquired_at = clock_timestamp(),\n',
        to: '    UPDATE leases l SET holder = p_holder, token = prev.token, acquired_at = clock_timestamp(),\n',
      },
    ],
    tests: ['db/leases.test', 'db/core-properties'],
  },
  {
    name: 'acquire-expiry-by-now',
    what: "fl_acquire_lease judges the old lease's expiry by now() (its transaction's start), not clock_timestamp(): a lease that ran out during the transaction still looks held",
    replacements: [
      {
        file: ACQUIRE_SQL,
        from: '  IF had_prev AND prev.expires_at > clock_timestamp() THEN\n',
        to: '  IF had_prev AND prev.expires_at > now() THEN\n',
      },
    ],
    tests: ['db/leases.test', 'db/core-properties'],
  },
  {
    name: 'renew-expiry-by-now',
    what: 'fl_renew_lease judges expiry by now(): a renewal late in a transaction that began while the lease ran extends a lease that has already run out',
    replacements: [
      {
        file: RENEW_SQL,
        from: 'l.token = p_token AND l.expires_at > clock_timestamp()\n',
        to: 'l.token = p_token AND l.expires_at > now()\n',
      },
    ],
    tests: ['db/leases.test', 'db/core-properties'],
  },
  {
    name: 'expiry-by-worker-clock',
    what: "the worker's lease loop trusts its own clock over the database: a refused renewal is ignored while the worker's clock says its lease still runs",
    replacements: [
      {
        file: 'lib/worker/lease-client.ts',
        from: "    if (result.outcome === 'lost') {\n",
        to: "    if (result.outcome === 'lost' && this.clock.now() >= (this.belief?.until ?? 0)) {\n",
      },
    ],
    tests: ['lib/supervisor/drift-setting'],
  },
  {
    name: 'token-minted-before-grant',
    what: "fl_acquire_lease calls nextval before it locks the lease and finds it free, outside the grant's decision: every refused acquire mints a token, and the mint is no longer ordered by the grant",
    replacements: [
      {
        file: ACQUIRE_SQL,
        from: '  SELECT * INTO prev FROM leases l WHERE l.resource = p_resource FOR UPDATE;\n',
        to: "  next_token := nextval('write_epoch');\n  SELECT * INTO prev FROM leases l WHERE l.resource = p_resource FOR UPDATE;\n",
      },
      {
        file: ACQUIRE_SQL,
        from: "    next_token := nextval('write_epoch');\n  END IF;\n",
        to: '    NULL;\n  END IF;\n',
      },
    ],
    tests: ['db/leases.test', 'db/core-properties'],
  },
  {
    name: 'events-out-of-commit-order',
    what: "events_assign_id no longer takes the lab's lock until commit before it draws an id: ids are no longer in commit order, and a reader following `id > last seen` can skip an event",
    replacements: [
      {
        file: 'db/functions/events_assign_id.sql',
        from: "  PERFORM pg_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext(NEW.lab));\n",
        to: '',
      },
    ],
    tests: ['db/events-order'],
  },
  // The judge judged: bugs in the history checker, which the oracle and the incremental test must see.
  {
    name: 'checker-misses-one-token-back',
    what: 'the checker flags token-went-back only when a write goes back by more than one token',
    replacements: [
      {
        file: 'lib/model/checker/checker.ts',
        from: '      if (previous && write.token < previous.token) {\n',
        to: '      if (previous && write.token < previous.token - 1) {\n',
      },
    ],
    tests: ['lib/model/checker/checker-properties'],
  },
  {
    name: 'incremental-checker-rechecks',
    what: "the incremental checker's append checks every event from the start again, not only the new ones",
    replacements: [
      {
        file: 'lib/model/checker/checker.ts',
        from: '      for (let i = from; i < to; i++) check(events[i] as WireEvent);\n',
        to: '      for (let i = 0; i < to; i++) check(events[i] as WireEvent);\n',
      },
    ],
    tests: ['lib/model/checker/checker-properties'],
  },
  {
    name: 'guard-intact-ignores-body',
    what: "fl_guard_intact no longer compares the guard function's body (pg_proc.prosrc): a guard_write whose body was changed, every attribute kept, still runs",
    replacements: [
      {
        file: 'db/functions/fl_guard_intact.sql',
        from: '           AND p.prosrc = public.fl_guard_body()\n',
        to: '',
      },
    ],
    tests: ['db/your-guard.test'],
  },
];
