import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from './fixtures';
import { type Answer, send } from './raw-http';

/*
 * Requests a trainee sends with curl that Next cannot read, each answered in words with a 4xx (left
 * to Next, each was a bare 500): a malformed percent-encoding in a dynamic segment, server actions
 * with a body that is not JSON, nested 100,000 deep, 5 MB large or with a `__proto__` key, and an
 * action whose Origin is another of the server's names than its Host. The request hook (proxy.ts)
 * refuses them; the words are lib/model/core/request-shape.ts's and hosts.ts's.
 */

/** A server action's id, from the build the app under test runs (the same folder). */
function actionId(name: string): string {
  const manifest = JSON.parse(readFileSync(path.join('.next', 'server', 'server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { exportedName?: string }>;
  };
  const id = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === name)?.[0];
  if (!id) throw new Error(`no server action ${name} in .next/server/server-reference-manifest.json`);
  return id;
}

/** A server action's result, from its response (the line React's flight format gives it). */
function actionResult(answer: Answer): { ok: boolean; error?: { code: string; message: string } } | undefined {
  const line = answer.body.split('\n').find((l) => l.startsWith('1:{"ok":'));
  return line ? JSON.parse(line.slice(2)) : undefined;
}

test('a malformed percent-encoding in the address: 400 in words, a page for a page, JSON for a route', async ({
  baseURL,
  page,
}) => {
  const base = baseURL as string;
  for (const route of ['/api/labs/%ff/history', '/soak/%ff/history/x', '/api/labs/%e0%a4/events']) {
    const answer = await send(base, { path: route });
    expect(answer.status, route).toBe(400);
    expect(answer.contentType, route).toMatch(/^application\/json/);
    const { error } = JSON.parse(answer.body) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^the address \/.* has a malformed percent-encoding \(%(ff|e0%a4)\)/);
  }
  for (const route of ['/labs/%ff', '/labs/%ff/present', '/soak/%ff', '/labs/fenced%zz']) {
    const answer = await send(base, { path: route });
    expect(answer.status, route).toBe(400);
    expect(answer.contentType, route).toMatch(/^text\/html/);
    expect(answer.body).toContain('This address names no page');
    expect(answer.body).toMatch(/has a malformed percent-encoding \(%(ff|zz)\)/);
  }

  // In a browser: what was wrong, and the way home.
  const opened = await page.goto('/labs/%ff');
  expect(opened?.status()).toBe(400);
  await expect(page.getByTestId('refusal')).toHaveText(
    'The address /labs/%ff has a malformed percent-encoding (%ff): it names nothing on this server.',
  );
  await page.getByRole('link', { name: 'go to the home page' }).click();
  await expect(page).toHaveURL(`${base}/`);
});

test('a server action whose body Next cannot read: 400 or 413 in words; a well-formed one still runs', async ({
  baseURL,
}) => {
  const base = baseURL as string;
  const host = new URL(base).host;
  const id = actionId('resetLabAction');
  const action = (body: string | Buffer, extra: { headers?: Record<string, string>; chunked?: boolean } = {}) =>
    send(base, {
      path: '/labs/fenced',
      method: 'POST',
      headers: {
        'Next-Action': id,
        'Content-Type': 'text/plain;charset=UTF-8',
        Accept: 'text/x-component',
        Origin: base,
        ...extra.headers,
      },
      body,
      ...(extra.chunked ? { chunked: true } : {}),
    });

  // Well-formed: the hook reads a copy of the body, and the action still reads all of it (and refuses
  // a browser without the trainer key, in its own words).
  const wellFormed = await action(JSON.stringify([{ lab: 'fenced' }]));
  expect(wellFormed.status).toBe(200);
  expect(actionResult(wellFormed)?.error?.code).toBe('forbidden');

  const cases: { name: string; body: string | Buffer; chunked?: boolean; status: number; words: RegExp }[] = [
    {
      name: 'malformed JSON',
      body: '[{"lab":',
      status: 400,
      words: /^The input is not JSON as a page of this app sends it \(.+\): reload the page and try again\.\n$/,
    },
    {
      name: '100,000 nested brackets',
      body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      status: 400,
      words: /^The input nests deeper than 64 levels: no action of this app takes that\.\n$/,
    },
    {
      name: 'a 5 MB body',
      body: Buffer.alloc(5 * 1024 * 1024, 'a'),
      status: 413,
      words: /^The request's body is too large \(5\.0 MB\): a server action takes at most 1 MB\.\n$/,
    },
    {
      name: 'a 5 MB body in chunks, no Content-Length',
      body: Buffer.alloc(5 * 1024 * 1024, 'a'),
      chunked: true,
      status: 413,
      words: /^The request's body is too large: a server action takes at most 1 MB\.\n$/,
    },
    {
      name: 'an extra __proto__ key',
      body: JSON.stringify([{ lab: 'fenced' }]).replace('}', ',"__proto__":{"ok":true}}'),
      status: 400,
      words: /^The input has a field it does not take: __proto__\.\n$/,
    },
  ];
  for (const c of cases) {
    const answer = await action(c.body, c.chunked ? { chunked: true } : {});
    expect(answer.status, c.name).toBe(c.status);
    expect(answer.contentType, c.name).toMatch(/^text\/plain/);
    expect(answer.body, c.name).toMatch(c.words);
  }

  // The same in a multipart body (React's reply as form fields): the numbered field is read as JSON.
  const boundary = 'fencing-lab-boundary';
  const multipart = await action(
    `--${boundary}\r\nContent-Disposition: form-data; name="0"\r\n\r\n[{"lab":\r\n--${boundary}--\r\n`,
    {
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    },
  );
  expect(multipart.status).toBe(400);
  expect(multipart.body).toMatch(/^The input is not JSON as a page of this app sends it/);

  // Host and Origin both ours, but not the same name: Next would not run it (and answered a bare 500).
  const port = new URL(base).port;
  const mismatch = await action(JSON.stringify([{ lab: 'fenced' }]), {
    headers: { Host: `localhost:${port}`, Origin: `http://127.0.0.1:${port}` },
  });
  expect(mismatch.status).toBe(403);
  expect(mismatch.body).toBe(
    `This Fencing Lab server runs a page's action only when the page was opened by the name the action is sent to: the page is 127.0.0.1:${port}, the action went to localhost:${port}. Open the app by one name and use it from there.\n`,
  );
  const sameName = await action(JSON.stringify([{ lab: 'fenced' }]), {
    headers: { Host: host, Origin: `http://${host}` },
  });
  expect(actionResult(sameName)?.error?.code).toBe('forbidden');
});
