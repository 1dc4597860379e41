import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { ensureJobsDatabase, jobsDatabaseName, jobsUrlFrom } from './jobs-database';
import { databaseUrl, newClient } from './pool';
import { appRoleName, databaseNameOf } from './role-names';

/*
 * The job queue's database of its own (issue 33, db/jobs-database.ts), on an operator's PostgreSQL: an
 * owner without CREATEDB is told what to run, a database made beforehand for it is used, one owned by
 * someone else is refused in words; its name fits PostgreSQL's 63 bytes.
 */

const suffix = randomBytes(4).toString('hex');
const operator = `fl_operator_${suffix}`;
const password = randomBytes(12).toString('hex');
const labDatabase = `fl_operator_lab_${suffix}`;
const jobs = jobsDatabaseName(labDatabase);
const app = appRoleName(databaseNameOf(databaseUrl()));

let superuser: pg.Client;

/** The operator's own session, on the `postgres` database (the lab's need not exist for this). */
async function asOperator<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(databaseUrl());
  url.username = operator;
  url.password = password;
  url.pathname = '/postgres';
  const client = newClient(url.toString());
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

before(async () => {
  superuser = newClient();
  await superuser.connect();
  // What an operator's URL user may be: it makes roles (the migrations need it), not databases.
  await superuser.query(`CREATE ROLE ${operator} LOGIN CREATEROLE NOCREATEDB PASSWORD '${password}'`);
});

after(async () => {
  await superuser.query(`DROP DATABASE IF EXISTS "${jobs}"`);
  await superuser.query(`DROP ROLE IF EXISTS ${operator}`);
  await superuser.end();
});

test('an owner without CREATEDB is told the two ways out; a database made for it beforehand is used and closed to PUBLIC', {
  timeout: 30_000,
}, async () => {
  await assert.rejects(
    asOperator((client) => ensureJobsDatabase(client, labDatabase, app)),
    (error: Error) => {
      assert.match(error.message, new RegExp(`the job queue needs a database of its own, "${jobs}"`));
      assert.ok(error.message.includes(`ALTER ROLE "${operator}" CREATEDB`), error.message);
      assert.ok(error.message.includes(`CREATE DATABASE "${jobs}" OWNER "${operator}"`), error.message);
      return true;
    },
  );
  await superuser.query(`CREATE DATABASE "${jobs}" OWNER ${operator}`);
  assert.equal(await asOperator((client) => ensureJobsDatabase(client, labDatabase, app)), jobs);
  const { rows } = await superuser.query(
    `SELECT has_database_privilege('public', $1, 'CONNECT') AS public_connects,
            has_database_privilege('public', $1, 'TEMP') AS public_temp,
            has_database_privilege($2, $1, 'CONNECT') AS app_connects`,
    [jobs, app],
  );
  assert.deepEqual(rows[0], { public_connects: false, public_temp: false, app_connects: true });
});

test('a jobs database owned by another role is refused, saying how to hand it over', { timeout: 30_000 }, async () => {
  const other = `fl_other_lab_${suffix}`;
  const theirs = jobsDatabaseName(other);
  await superuser.query(`CREATE DATABASE "${theirs}"`);
  try {
    await assert.rejects(
      asOperator((client) => ensureJobsDatabase(client, other, app)),
      new RegExp(`exists but is not owned by "${operator}".*ALTER DATABASE "${theirs}" OWNER TO "${operator}"`),
    );
  } finally {
    await superuser.query(`DROP DATABASE "${theirs}"`);
  }
});

test("the jobs database's name: `<lab>_jobs`, or cut to 63 bytes with a digest that keeps two long names apart", () => {
  assert.equal(jobsDatabaseName('fencing_lab'), 'fencing_lab_jobs');
  assert.equal(new URL(jobsUrlFrom('postgres://u:p@127.0.0.1:5432/fencing_lab?x=1')).pathname, '/fencing_lab_jobs');
  const long = 'a'.repeat(60);
  const [one, two] = [jobsDatabaseName(`${long}1`), jobsDatabaseName(`${long}2`)];
  assert.notEqual(one, two);
  for (const name of [one, two, jobsDatabaseName('é'.repeat(31))]) {
    assert.ok(Buffer.byteLength(name, 'utf8') <= 63, name);
    assert.match(name, /_[0-9a-f]{8}_jobs$/);
  }
  assert.equal(jobsDatabaseName('x'.repeat(58)), `${'x'.repeat(58)}_jobs`, 'exactly 63 bytes fit');
});
