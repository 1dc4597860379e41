import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionOriginRefusal, hostRefusal, ownHostsOf, splitAuthority } from './hosts';

const base = { port: '3000', listenHost: '127.0.0.1', machineAddresses: [], machineNames: [], allowed: [] };
const ask = (host: string | null, extra: { origin?: string; forwardedHost?: string } = {}) => ({
  host,
  forwardedHost: extra.forwardedHost ?? null,
  origin: extra.origin ?? null,
});

test('the loopback names with our port are ours; another name or port is refused with 421', () => {
  const own = ownHostsOf(base);
  for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'LOCALHOST:3000']) {
    assert.equal(hostRefusal(ask(host), own), undefined, host);
  }
  for (const host of ['evil.example:3000', 'localhost:3001', 'localhost', '127.0.0.1.evil.example:3000', '']) {
    assert.equal(hostRefusal(ask(host), own)?.status, 421, host);
  }
  assert.equal(hostRefusal(ask(null), own)?.status, 421);
  assert.equal(hostRefusal(ask('localhost:3000', { forwardedHost: 'evil.example' }), own)?.status, 421);
});

test('a foreign Origin is refused with 403, even on an allowed Host', () => {
  const own = ownHostsOf(base);
  assert.equal(hostRefusal(ask('localhost:3000', { origin: 'http://localhost:3000' }), own), undefined);
  assert.equal(hostRefusal(ask('localhost:3000', { origin: 'http://evil.example:3000' }), own)?.status, 403);
  assert.equal(hostRefusal(ask('localhost:3000', { origin: 'null' }), own)?.status, 403);
});

test('HOST, the machine when listening everywhere, and FENCING_LAB_ALLOWED_HOSTS', () => {
  const listening = ownHostsOf({ ...base, listenHost: '192.168.1.10' });
  assert.equal(hostRefusal(ask('192.168.1.10:3000'), listening), undefined);
  assert.equal(hostRefusal(ask('192.168.1.11:3000'), listening)?.status, 421);
  const everywhere = ownHostsOf({
    ...base,
    listenHost: '0.0.0.0',
    machineAddresses: ['192.168.1.10', 'fe80::1'],
    machineNames: ['trainer-laptop'],
  });
  for (const host of ['192.168.1.10:3000', '[fe80::1]:3000', 'trainer-laptop:3000']) {
    assert.equal(hostRefusal(ask(host), everywhere), undefined, host);
  }
  const allowed = ownHostsOf({ ...base, allowed: ['Lab.Example.org', 'other.example:8443', ' '] });
  for (const host of ['lab.example.org', 'lab.example.org:3000', 'other.example:8443']) {
    assert.equal(hostRefusal(ask(host), allowed), undefined, host);
  }
  assert.equal(hostRefusal(ask('other.example:3000'), allowed)?.status, 421);
});

test('host headers are split the way browsers write them', () => {
  assert.deepEqual(splitAuthority('[::1]:3000'), { name: '[::1]', port: '3000' });
  assert.deepEqual(splitAuthority('Example.org.'), { name: 'example.org' });
  assert.deepEqual(splitAuthority('::1'), { name: '[::1]' });
});

test('another site’s page loading us as an image or a script is refused; a person following a link is not', () => {
  const own = ownHostsOf(base);
  const from = (fetchSite: string, fetchMode: string) => ({ ...ask('localhost:3000'), fetchSite, fetchMode });
  assert.equal(hostRefusal(from('cross-site', 'no-cors'), own)?.status, 403);
  assert.equal(hostRefusal(from('cross-site', 'cors'), own)?.status, 403);
  assert.equal(hostRefusal(from('cross-site', 'navigate'), own), undefined);
  assert.equal(hostRefusal(from('same-origin', 'cors'), own), undefined);
  assert.equal(hostRefusal(from('none', 'navigate'), own), undefined);
});

test('a server action whose Origin names another of our hosts than the one it was sent to is refused with 403 in words', () => {
  const sent = (host: string, origin: string | null, forwardedHost: string | null = null) =>
    actionOriginRefusal({ host, origin, forwardedHost });
  assert.equal(sent('localhost:3000', 'http://localhost:3000'), undefined);
  assert.equal(sent('localhost:3000', null), undefined);
  assert.equal(sent('localhost:3000', 'http://lab.example', 'lab.example'), undefined);
  const refused = sent('localhost:3000', 'http://127.0.0.1:3000');
  assert.equal(refused?.status, 403);
  assert.match(refused?.message ?? '', /the page is 127\.0\.0\.1:3000, the action went to localhost:3000/);
  // Next compares the names as written: a Host in capitals is another name.
  assert.equal(sent('LOCALHOST:3000', 'http://localhost:3000')?.status, 403);
  assert.equal(sent('localhost:3000', 'http://localhost:3000', 'lab.example')?.status, 403);
});
