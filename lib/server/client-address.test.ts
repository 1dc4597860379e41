import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { clientAddressOf, normaliseAddress, peerAddressIsTrusted } from './client-address';

const PRELOAD = path.resolve('lib/server/peer-address.cjs');

// A real HTTP server in a child process with the preload the launcher gives the Next server: what
// reaches the handler is the socket's peer, whatever the client claims.
const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  res.end(JSON.stringify({ peer: req.headers['x-fencing-lab-peer'], xff: req.headers['x-forwarded-for'] ?? null }));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

test('the preload stamps the socket peer over any client-supplied header', async (t) => {
  const child = spawn(process.execPath, ['--require', PRELOAD, '-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGTERM'));
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (data) => resolve(String(data).trim())),
  );
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    headers: { 'x-fencing-lab-peer': '203.0.113.9', 'x-forwarded-for': '198.51.100.7' },
  });
  const seen = (await res.json()) as { peer: string; xff: string | null };
  assert.equal(normaliseAddress(seen.peer), '127.0.0.1');
  assert.equal(seen.xff, '198.51.100.7', 'X-Forwarded-For is left as the client sent it (so never trusted)');
});

test('behind a trusted reverse proxy the client is the hop that reverse proxy appended, never an earlier claim', async (t) => {
  const child = spawn(process.execPath, ['--require', PRELOAD, '-e', SERVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FENCING_LAB_TRUSTED_PROXIES: '10.9.9.9, 127.0.0.1' },
  });
  t.after(() => child.kill('SIGTERM'));
  const port = await new Promise<string>((resolve) =>
    child.stdout.once('data', (data) => resolve(String(data).trim())),
  );
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    // What a reverse proxy sends on: the client's own claim first, then the address it saw.
    headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' },
  });
  const seen = (await res.json()) as { peer: string };
  assert.equal(seen.peer, '198.51.100.7');
});

test('without the preload only the last X-Forwarded-For hop counts, and it is marked untrusted', () => {
  assert.equal(peerAddressIsTrusted(), false);
  const headers = new Headers({ 'x-forwarded-for': '203.0.113.9, ::ffff:10.0.0.2', 'x-fencing-lab-peer': '1.2.3.4' });
  assert.equal(clientAddressOf(headers), '10.0.0.2');
});

test('with the preload the peer header is used and X-Forwarded-For ignored', () => {
  const marker = Symbol.for('fencing-lab.peer-header');
  const global = globalThis as Record<symbol, unknown>;
  global[marker] = 'x-fencing-lab-peer';
  try {
    const headers = new Headers({ 'x-forwarded-for': '203.0.113.9', 'x-fencing-lab-peer': '::1' });
    assert.equal(clientAddressOf(headers), '::1');
    assert.equal(clientAddressOf(new Headers()), 'unknown');
  } finally {
    delete global[marker];
  }
});
