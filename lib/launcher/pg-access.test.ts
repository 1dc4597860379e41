import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { workerCommand } from '../model/lab/worker-command';
import { hbaFor, listenAddressesFor } from './pg-access';

/*
 * What goes into PostgreSQL's configuration comes from HOST and a role name: nothing in them may add
 * an address to listen on or a line to pg_hba.conf. The printed command survives a pasted shell.
 * (What the rules let in is tested against a real server in remote-workers.test.ts.)
 */

const remote = (listenOn: string) => ({ listenOn, workerRole: 'fencing_lab_worker', localRole: 'fencing_lab_local' });

test('PostgreSQL listens on loopback, plus the address the app listens on when it is not loopback', () => {
  assert.equal(listenAddressesFor(undefined), '127.0.0.1');
  assert.equal(listenAddressesFor(remote('0.0.0.0')), '0.0.0.0');
  assert.equal(listenAddressesFor(remote('::')), '*');
  assert.equal(listenAddressesFor(remote('192.0.2.7')), '127.0.0.1,192.0.2.7');
  assert.equal(listenAddressesFor(remote('lab.example.org')), '127.0.0.1,lab.example.org');
  assert.throws(() => listenAddressesFor(remote('192.0.2.7,0.0.0.0')), /HOST must be an IP address or a host name/);
});

test("pg_hba.conf lets only the worker role's members in from the network (never the local role), and only when asked", () => {
  const networkRules = (text: string) => text.split('\n').filter((line) => /0\.0\.0\.0\/0|::\/0/.test(line));
  assert.deepEqual(
    networkRules(hbaFor(undefined, 'fencing_lab', 'postgres', 'fencing_lab_worker')).map((line) =>
      line.split(/\s+/).join(' '),
    ),
    ['host all all 0.0.0.0/0 reject', 'host all all ::/0 reject'],
  );
  assert.deepEqual(
    networkRules(hbaFor(remote('0.0.0.0'), 'fencing_lab', 'postgres', 'fencing_lab_worker')).map((line) =>
      line.split(/\s+/).join(' '),
    ),
    [
      'host all postgres 0.0.0.0/0 reject',
      'host all postgres ::/0 reject',
      'host all fencing_lab_local 0.0.0.0/0 reject',
      'host all fencing_lab_local ::/0 reject',
      'host fencing_lab +fencing_lab_worker 0.0.0.0/0 scram-sha-256',
      'host fencing_lab +fencing_lab_worker ::/0 scram-sha-256',
      'host all all 0.0.0.0/0 reject',
      'host all all ::/0 reject',
    ],
  );
  assert.throws(() =>
    hbaFor(
      { listenOn: '0.0.0.0', workerRole: 'all trust\nhost all', localRole: 'fencing_lab_local' },
      'fencing_lab',
      'postgres',
      'fencing_lab_worker',
    ),
  );
  assert.throws(() => hbaFor(undefined, 'fencing_lab', 'postgres', 'all trust\nhost all'));
});

test('the worker command pastes into a shell as one --db argument, whatever the chosen password', () => {
  for (const password of ['plain-Password_1', "it's (a) *room*! $HOME `id`"]) {
    const url = `postgres://fencing_lab_worker:${encodeURIComponent(password)}@192.0.2.2:54329/fencing_lab`;
    const command = workerCommand(url, 'p-abc', "k'ey")
      .replace(/^npm run worker -- /, 'printf "%s\\n" ')
      .replace(' <your name>', ' A');
    const words = execFileSync('sh', ['-c', command], { encoding: 'utf8' }).trimEnd().split('\n');
    assert.deepEqual(words, ['--db', url, '--lab', 'p-abc', '--join-key', "k'ey", '--name', 'A']);
  }
});
