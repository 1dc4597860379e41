import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { labJoinKey } from '../../db/labs';
import { closePool, getPool } from '../../db/pool';
import { PROJECT_ROOT } from '../launcher/paths';
import { openPrivateLabOnLine as open, type openPrivateLabOnLine } from '../testing/private-lab-line';
import { pythonWithPsycopg } from '../testing/python';
import { waitFor } from '../testing/wait';
import { testWorkerLineUrl } from '../testing/worker-line';

/*
 * The reference clients in other languages (issue 36, docs/protocol.md): bash with psql alone joins a
 * fenced private lab on a person's worker line, and so does Python with psycopg 3; takes the lease, writes with the token it was granted
 * (each write recorded as the lab's history), and, on SIGTERM, releases it and records its stop.
 */

const PSQL_CLIENT = path.join(PROJECT_ROOT, 'clients/psql/worker.sh');
const PYTHON_CLIENT = path.join(PROJECT_ROOT, 'clients/python/worker.py');

let at: Awaited<ReturnType<typeof openPrivateLabOnLine>>;
const children: ChildProcess[] = [];

before(async () => {
  at = await open('psql-client');
});
after(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await at.close();
  await closePool();
});

const kindsOf = async (actor: string) =>
  (
    await getPool().query<{ kind: string; token: string | null }>(
      'SELECT kind, token FROM events WHERE lab = $1 AND actor = $2 ORDER BY id',
      [at.lab, actor],
    )
  ).rows;

test('psql is installed (the bash client needs it: apt-get install postgresql-client)', () => {
  assert.ok(
    execFileSync('bash', ['-c', 'command -v psql || true']).toString().trim() !== '',
    'no psql on this machine: apt-get install postgresql-client (.ci/run does)',
  );
});

test('python3 with psycopg is installed (the Python client needs it: apt-get install python3-psycopg)', () => {
  assert.ok(pythonWithPsycopg(), 'no python3 here imports psycopg: apt-get install python3-psycopg (.ci/run does)');
});

const CLIENTS = [
  { language: 'bash and psql', actor: 'Bash', command: () => ['bash', PSQL_CLIENT] },
  { language: 'Python and psycopg', actor: 'Py', command: () => [pythonWithPsycopg() ?? 'python3', PYTHON_CLIENT] },
];

for (const client of CLIENTS) {
  test(`${client.language} alone: joins, holds the lease, writes with its token, and stops cleanly`, {
    timeout: 60_000,
  }, async () => {
    const [program, ...args] = client.command();
    const child = spawn(program as string, args, {
      env: {
        ...process.env,
        FENCING_LAB_URL: await testWorkerLineUrl({ who: 'psql-client' }),
        FENCING_LAB_LAB: at.lab,
        FENCING_LAB_NAME: client.actor,
        FENCING_LAB_JOIN_KEY: (await labJoinKey(at.lab)) ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    await waitFor(
      async () => (await kindsOf(client.actor)).filter((e) => e.kind === 'write_accepted').length >= 3,
      `three accepted writes of the ${client.language} client (it said: ${said})`,
      { timeoutMs: 30_000 },
    );
    assert.match(said, /^I hold token \d+ until /m);
    assert.match(said, new RegExp(`^wrote ${client.actor}-1 with token \\d+$`, 'm'));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0, said);
    const kinds = (await kindsOf(client.actor)).map((e) => e.kind);
    assert.equal(kinds[0], 'worker_started');
    assert.ok(kinds.includes('lease_acquired') && kinds.includes('write_sent'));
    assert.deepEqual(kinds.slice(-2), ['lease_released', 'worker_stopped'], kinds.join(', '));
    // Every write it made carried the token it was granted.
    const events = await kindsOf(client.actor);
    const granted = events.find((e) => e.kind === 'lease_acquired')?.token;
    assert.ok(events.filter((e) => e.kind === 'write_accepted').every((e) => e.token === granted));
  });
}
