import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { databaseUrl, jobsDatabaseUrl, newClient } from './pool';
import { appRoleName, databaseNameOf, localWorkerRoleName, workerRoleName } from './role-names';

/*
 * Everything the worker role and the app role may do in the database, read from PostgreSQL's own
 * catalogue (has_*_privilege: what a role really may do, grants to PUBLIC and memberships
 * included), against the one list below. Whoever adds a function, a table or a grant for either role
 * adds it here on purpose, or this fails. The owner runs the migrations and is not listed.
 */

const WORKER_FUNCTIONS = [
  'worker_acquire_lease(p_lab text, p_name text, p_instance text, p_ttl_ms double precision)',
  'worker_acquire_lease_same_token(p_lab text, p_name text, p_instance text, p_ttl_ms double precision)',
  'worker_beat(p_lab text, p_name text, p_instance text, p_phase text, p_token bigint, p_believed_until timestamp with time zone, p_armed boolean)',
  'worker_broken_write(p_lab text, p_name text, p_instance text, p_mode text, p_value text, p_token bigint)',
  'worker_critical_window_reached(p_lab text, p_name text, p_instance text)',
  'worker_delayed_packet_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint, p_attempt text)',
  'worker_fenced_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint)',
  'worker_hold_critical_window(p_lab text, p_name text, p_instance text)',
  'worker_join(p_lab text, p_name text, p_instance text, p_settings jsonb, p_join_key text)',
  'worker_lease_by_database_clock(p_lab text, p_name text, p_instance text, p_token bigint)',
  'worker_mark_crashed(p_lab text, p_name text, p_instance text)',
  'worker_mark_stopped(p_lab text, p_name text, p_instance text)',
  'worker_read_own_token(p_lab text, p_name text, p_instance text)',
  'worker_record_event(p_lab text, p_name text, p_instance text, p_kind text, p_token bigint, p_detail jsonb)',
  'worker_record_origin(p_lab text, p_name text, p_instance text, p_origin jsonb)',
  'worker_release_critical_window(p_lab text, p_name text, p_instance text)',
  'worker_release_lease(p_lab text, p_name text, p_instance text, p_token bigint)',
  'worker_renew_lease(p_lab text, p_name text, p_instance text, p_token bigint, p_ttl_ms double precision)',
  'worker_take_commands(p_lab text, p_name text, p_instance text)',
  'worker_your_guard_write(p_lab text, p_name text, p_instance text, p_value text, p_token bigint)',
];

const APP_FUNCTIONS = [
  'fl_acquire_lease(p_resource text, p_holder text, p_ttl_ms double precision, p_lab text, p_generation bigint, p_text_epoch boolean)',
  'fl_broken_takeover_same_token(p_resource text, p_holder text, p_ttl_ms double precision, p_lab text, p_generation bigint)',
  'fl_broken_write(p_lab text, p_row_id integer, p_mode text, p_value text, p_token bigint, p_actor text, p_generation bigint)',
  'fl_create_protected_row(p_value text)',
  'fl_delayed_packet_write(p_lab text, p_row_id integer, p_value text, p_token bigint, p_actor text, p_generation bigint, p_attempt text)',
  'fl_drop_guard(p_lab text)',
  'fl_end_blocking_worker_sessions(p_wait_ms integer, p_transaction_ms integer)',
  'fl_end_overdue_worker_sessions(p_statement_ms integer, p_idle_ms integer)',
  'fl_end_sessions_holding_lab(p_lab text)',
  'fl_fenced_write(p_row_id integer, p_value text, p_token bigint, p_actor text, p_lab text, p_generation bigint)',
  'fl_install_guard(p_lab text, p_statement text)',
  'fl_iso(t timestamp with time zone)',
  'fl_issue_worker_line(p_holder text, p_lab text, p_address inet, p_password text, p_connections integer, p_per_address integer)',
  'fl_mark_worker_killed(p_lab text, p_name text, p_worker_pid integer)',
  'fl_poll_answer(p_lab text, p_poll bigint, p_owner_hash text, p_choice integer)',
  'fl_poll_ask(p_lab text, p_step integer, p_question text, p_choices text[])',
  'fl_poll_reveal(p_lab text, p_poll bigint, p_step integer)',
  'fl_read_unguarded_token(p_lab text, p_row_id integer)',
  'fl_record_expired_leases()',
  'fl_release_lease(p_resource text, p_holder text, p_token bigint, p_lab text, p_generation bigint)',
  'fl_renew_lease(p_resource text, p_holder text, p_token bigint, p_ttl_ms double precision, p_lab text, p_generation bigint)',
  'fl_reset_protected_row(p_id integer, p_value text)',
  'fl_reset_unguarded_row(p_lab text, p_value text)',
  'fl_restore_changed_worker_lines()',
  'fl_revoke_lease(p_resource text)',
  'fl_stage_guard_token(p_lab text, p_next bigint)',
  'fl_take_guard_share(p_owner_hash text, p_address text, p_counted_as text, p_per_owner integer, p_per_address integer, p_window_ms integer)',
  'fl_your_guard_write(p_lab text, p_value text, p_token bigint, p_actor text, p_generation bigint)',
  'lab_generation_bump(lab_id text)',
  'lab_generation_current(lab_id text, worker_generation bigint)',
];

/** Table: its privileges. No UPDATE of protected_rows or unguarded_rows: those go through the functions. */
const APP_TABLES = [
  'client_runs: SELECT',
  'database_identity: SELECT',
  'events: DELETE, INSERT, SELECT',
  // Its verdict columns only (0043): UPDATE of some columns is not UPDATE of the table.
  'guard_attempts: DELETE, INSERT, SELECT',
  'lab_kind_writes: SELECT',
  'lab_kinds: SELECT',
  'labs: INSERT, SELECT',
  'leases: DELETE, SELECT',
  'poll_answers: SELECT',
  'polls: SELECT',
  'protected_rows: SELECT',
  'remote_workers: DELETE, SELECT',
  'schema_migrations: SELECT',
  'sweep_results: INSERT, SELECT',
  // Its stop and end columns only (0044).
  'sweeps: DELETE, INSERT, SELECT',
  'trainer_sessions: DELETE, INSERT, SELECT, UPDATE',
  'unguarded_rows: DELETE, INSERT, SELECT',
  'worker_commands: DELETE, INSERT, SELECT',
];
const APP_SEQUENCES = [
  'events_id_seq',
  'guard_attack_run_tokens',
  'guard_attempts_id_seq',
  'unguarded_row_ids',
  'worker_commands_id_seq',
  'write_epoch',
];

/*
 * The job queue's own database (db/jobs-database.ts, db/job-queue-schema.ts): the app servers run the
 * room's jobs from it; only the owner and the app role may connect.
 */
const JOBS_APP_FUNCTIONS = [
  'graphile_worker.add_job(identifier text, payload json, queue_name text, run_at timestamp with time zone, max_attempts integer, job_key text, priority integer, flags text[], job_key_mode text)',
  'graphile_worker.add_jobs(specs graphile_worker.job_spec[], job_key_preserve_run_at boolean)',
  'graphile_worker.complete_jobs(job_ids bigint[])',
  'graphile_worker.force_unlock_workers(worker_ids text[])',
  'graphile_worker.permanently_fail_jobs(job_ids bigint[], error_message text)',
  'graphile_worker.remove_job(job_key text)',
  'graphile_worker.reschedule_jobs(job_ids bigint[], run_at timestamp with time zone, priority integer, attempts integer, max_attempts integer)',
];
const JOBS_APP_TABLES = [
  'graphile_worker._private_job_queues: DELETE, INSERT, SELECT, UPDATE',
  'graphile_worker._private_jobs: DELETE, INSERT, SELECT, UPDATE',
  'graphile_worker._private_known_crontabs: DELETE, INSERT, SELECT, UPDATE',
  'graphile_worker._private_tasks: DELETE, INSERT, SELECT, UPDATE',
  'graphile_worker.jobs: DELETE, INSERT, SELECT, UPDATE',
  'graphile_worker.migrations: SELECT',
  'job_servers: DELETE, INSERT, SELECT, UPDATE',
];
const JOBS_APP_SEQUENCES = [
  'graphile_worker.job_queues_id_seq',
  'graphile_worker.jobs_id_seq1',
  'graphile_worker.tasks_id_seq',
];

const OUTSIDE_THE_CATALOGUE =
  "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'";

/** Names outside public carry their schema (the job queue's graphile_worker). */
const QUALIFIED = "CASE WHEN n.nspname = 'public' THEN '' ELSE n.nspname || '.' END";

let owner: pg.Client;
/** The owner on the job queue's database, where fencing_lab_role is not: roles are named by role-names.ts. */
let jobsOwner: pg.Client;
before(async () => {
  owner = newClient();
  await owner.connect();
  jobsOwner = newClient(jobsDatabaseUrl());
  await jobsOwner.connect();
});
after(async () => {
  await owner.end();
  await jobsOwner.end();
});

type Role = 'worker' | 'local' | 'app';

async function list(sql: string, role: Role): Promise<string[]> {
  const { rows } = await owner.query<{ item: string }>(sql, [role]);
  return rows.map((row) => row.item);
}

const functionsOf = (role: Role) =>
  list(
    `SELECT ${QUALIFIED} || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS item
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE ${OUTSIDE_THE_CATALOGUE} AND has_function_privilege(fencing_lab_role($1), p.oid, 'EXECUTE')
      ORDER BY 1`,
    role,
  );

const tablesOf = (role: Role) =>
  list(
    `SELECT ${QUALIFIED} || c.relname || ': ' || string_agg(privilege, ', ' ORDER BY privilege) AS item
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
            unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) AS privilege
      WHERE ${OUTSIDE_THE_CATALOGUE} AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
        AND has_table_privilege(fencing_lab_role($1), c.oid, privilege)
      GROUP BY n.nspname, c.relname ORDER BY 1`,
    role,
  );

const sequencesOf = (role: Role) =>
  list(
    `SELECT ${QUALIFIED} || c.relname AS item FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${OUTSIDE_THE_CATALOGUE} AND c.relkind = 'S'
        AND (has_sequence_privilege(fencing_lab_role($1), c.oid, 'USAGE')
             OR has_sequence_privilege(fencing_lab_role($1), c.oid, 'SELECT')
             OR has_sequence_privilege(fencing_lab_role($1), c.oid, 'UPDATE'))
      ORDER BY 1`,
    role,
  );

async function mayCreateOrJoin(role: Role): Promise<Record<string, unknown>> {
  const { rows } = await owner.query(
    `SELECT has_schema_privilege(fencing_lab_role($1), 'public', 'CREATE') AS create_in_public,
            has_database_privilege(fencing_lab_role($1), current_database(), 'CREATE') AS create_schema,
            has_database_privilege(fencing_lab_role($1), current_database(), 'TEMP') AS temp_tables,
            (SELECT count(*)::int FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member
              WHERE r.rolname = fencing_lab_role($1)) AS memberships,
            (SELECT rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls OR rolreplication
               FROM pg_roles WHERE rolname = fencing_lab_role($1)) AS powers`,
    [role],
  );
  return rows[0] as Record<string, unknown>;
}

const NOTHING_MORE = {
  create_in_public: false,
  create_schema: false,
  temp_tables: false,
  memberships: 0,
  powers: false,
};

test('the worker role may call its own functions and nothing else: no table, no sequence, no schema, no role', async () => {
  assert.deepEqual(await functionsOf('worker'), WORKER_FUNCTIONS);
  assert.deepEqual(await tablesOf('worker'), []);
  assert.deepEqual(await sequencesOf('worker'), []);
  assert.deepEqual(await mayCreateOrJoin('worker'), NOTHING_MORE);
});

test("the local worker role (the server's own workers, 0041) is the worker role's member, with its rights and no more", async () => {
  assert.deepEqual(await functionsOf('local'), WORKER_FUNCTIONS);
  assert.deepEqual(await tablesOf('local'), []);
  assert.deepEqual(await sequencesOf('local'), []);
  assert.deepEqual(await mayCreateOrJoin('local'), { ...NOTHING_MORE, memberships: 1 });
});

test('the app role may call the lab functions and read or write the tables listed; it updates no lab row itself', async () => {
  assert.deepEqual(await functionsOf('app'), APP_FUNCTIONS);
  assert.deepEqual(await tablesOf('app'), APP_TABLES);
  assert.deepEqual(await sequencesOf('app'), APP_SEQUENCES);
  assert.deepEqual(await mayCreateOrJoin('app'), NOTHING_MORE);
});

/*
 * The built-ins with which a role writes without bound (issue 33 item 7), taken from PUBLIC at every
 * start by fl_revoke_worker_volume: a WAL record of any size (pg_logical_emit_message), large
 * objects, notifications as the app (the app role keeps pg_notify). Read from the catalogue, every
 * overload: a new PostgreSQL's new overload shows here.
 */
const UNBOUNDED_WRITERS = [
  'pg_logical_emit_message',
  'lo_create',
  'lo_creat',
  'lo_from_bytea',
  'lo_import',
  'lo_open',
  'lo_put',
  'lowrite',
  'lo_truncate',
  'lo_truncate64',
  'lo_unlink',
  'pg_notify',
];

test('neither worker role may call a built-in that writes without bound, nor make temporary tables', async () => {
  for (const role of ['worker', 'local'] as const) {
    const { rows } = await owner.query<{ fn: string }>(
      `SELECT p.oid::regprocedure::text AS fn FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY($2)
          AND has_function_privilege(fencing_lab_role($1), p.oid, 'EXECUTE') ORDER BY 1`,
      [role, UNBOUNDED_WRITERS],
    );
    assert.deepEqual(
      rows.map((r) => r.fn),
      [],
      role,
    );
    assert.equal((await mayCreateOrJoin(role)).temp_tables, false, role);
  }
  const { rows } = await owner.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'pg_logical_emit_message'",
  );
  assert.ok((rows[0]?.n ?? 0) >= 2, 'both overloads are there to be refused');
});

const roleIn = (role: Role) => {
  const lab = databaseNameOf(databaseUrl());
  return role === 'app' ? appRoleName(lab) : role === 'local' ? localWorkerRoleName(lab) : workerRoleName(lab);
};

async function jobsList(sql: string, role: Role): Promise<string[]> {
  const { rows } = await jobsOwner.query<{ item: string }>(sql, [roleIn(role)]);
  return rows.map((row) => row.item);
}

test("the job queue's database: only the owner and the app role may connect; the app role runs the queue and creates nothing", async () => {
  const { rows } = await jobsOwner.query<{ role: string; connect: boolean }>(
    `SELECT r.role, has_database_privilege(r.name, current_database(), 'CONNECT') AS connect
       FROM unnest($1::text[], $2::text[]) AS r(role, name) ORDER BY 1`,
    [
      ['app', 'local', 'public', 'worker'],
      [roleIn('app'), roleIn('local'), 'public', roleIn('worker')],
    ],
  );
  assert.deepEqual(
    rows.map((row) => `${row.role}: ${row.connect}`),
    ['app: true', 'local: false', 'public: false', 'worker: false'],
  );
  const functions = `SELECT ${QUALIFIED} || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS item
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE ${OUTSIDE_THE_CATALOGUE} AND has_function_privilege($1, p.oid, 'EXECUTE')
      ORDER BY 1`;
  const tables = `SELECT ${QUALIFIED} || c.relname || ': ' || string_agg(privilege, ', ' ORDER BY privilege) AS item
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
            unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) AS privilege
      WHERE ${OUTSIDE_THE_CATALOGUE} AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
        AND has_table_privilege($1, c.oid, privilege)
      GROUP BY n.nspname, c.relname ORDER BY 1`;
  const sequences = `SELECT ${QUALIFIED} || c.relname AS item FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${OUTSIDE_THE_CATALOGUE} AND c.relkind = 'S'
        AND (has_sequence_privilege($1, c.oid, 'USAGE') OR has_sequence_privilege($1, c.oid, 'SELECT')
             OR has_sequence_privilege($1, c.oid, 'UPDATE'))
      ORDER BY 1`;
  assert.deepEqual(await jobsList(functions, 'app'), JOBS_APP_FUNCTIONS);
  assert.deepEqual(await jobsList(tables, 'app'), JOBS_APP_TABLES);
  assert.deepEqual(await jobsList(sequences, 'app'), JOBS_APP_SEQUENCES);
  const { rows: creates } = await jobsOwner.query(
    `SELECT has_schema_privilege($1, 'public', 'CREATE') AS create_in_public,
            has_database_privilege($1, current_database(), 'CREATE') AS create_schema,
            has_database_privilege($1, current_database(), 'TEMP') AS temp_tables`,
    [roleIn('app')],
  );
  assert.deepEqual(creates[0], { create_in_public: false, create_schema: false, temp_tables: false });
});
