import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FencingError, type FencingErrorCode } from '../model/core/errors';
import { readDoc, tableRows } from '../testing/docs-check';
import { answeringErrors, errorInWords, errorResponse, HTTP_STATUS, INTERNAL_ERROR, noSuchLab } from './error-answers';

/*
 * The one place a thrown value becomes an answer: a refusal keeps its code and words and gets its
 * status; anything else is a 500 in the same safe words as a failed action, its message only in the log.
 */

/** Runs `body` with console.error caught, and returns what it logged. */
async function logged(body: () => Promise<unknown> | unknown): Promise<string[]> {
  const lines: string[] = [];
  const { error } = console;
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  try {
    await body();
  } finally {
    console.error = error;
  }
  return lines;
}

const EXPECTED: Record<FencingErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  unknown_row: 404,
  forbidden: 403,
  worker_not_joined: 403,
  token_not_granted: 403,
  token_not_issued: 409,
  stale_token_refused: 409,
  poll_closed: 409,
  lab_reset: 409,
  lab_closed: 410,
  limit_reached: 429,
  rate_limited: 429,
  db_unavailable: 503,
};

test("each code is answered with its status, its code and its words, and is not logged as the server's fault", async () => {
  assert.deepEqual(HTTP_STATUS, EXPECTED);
  for (const [code, status] of Object.entries(EXPECTED) as [FencingErrorCode, number][]) {
    let response: Response | undefined;
    const lines = await logged(() => {
      response = errorResponse(new FencingError(code, `words for ${code}`), 'test');
    });
    assert.equal(response?.status, status, code);
    assert.equal(response?.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await response?.json(), { error: { code, message: `words for ${code}` } });
    assert.deepEqual(lines, [], code);
  }
});

test('a plain Error, or anything thrown, is a 500 in safe words: its message goes to the log, never to the caller', async () => {
  for (const thrown of [new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2'), 'a string', undefined]) {
    let response: Response | undefined;
    const lines = await logged(() => {
      response = errorResponse(thrown, 'history');
    });
    assert.equal(response?.status, 500);
    const text = await response?.text();
    assert.deepEqual(JSON.parse(text ?? ''), { error: INTERNAL_ERROR });
    assert.doesNotMatch(text ?? '', /ECONNREFUSED|hunter2|10\.0\.0\.7/);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /^\[history\] failed:/);
  }
  assert.equal(INTERNAL_ERROR.code, 'internal');
  assert.match(INTERNAL_ERROR.message, /the server failed to do this/);
});

test('a server action reads the same words as a route: errorInWords', async () => {
  assert.deepEqual(errorInWords(new FencingError('forbidden', 'only the trainer'), 'action'), {
    code: 'forbidden',
    message: 'only the trainer',
  });
  let words: unknown;
  await logged(() => {
    words = errorInWords(new TypeError('x is undefined'), 'action');
  });
  assert.deepEqual(words, INTERNAL_ERROR);
});

test('a wrapped route handler answers what it throws, and passes its own answer through', async () => {
  const handler = answeringErrors('test', async (lab: string) => {
    if (lab === 'ok') return new Response('fine');
    throw noSuchLab(lab);
  });
  assert.equal(await (await handler('ok')).text(), 'fine');
  const missing = await handler('secret');
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: { code: 'not_found', message: 'no lab "secret"' } });
});

test("docs/how-it-works.md's table of codes is HTTP_STATUS, row for row", () => {
  const rows = tableRows(readDoc('docs/how-it-works.md')).flatMap(({ cells }) => {
    const code = /^`([a-z_]+)`$/.exec(cells[0] ?? '')?.[1];
    return code && /^\d{3}$/.test(cells[1] ?? '') ? [[code, Number(cells[1])] as const] : [];
  });
  assert.deepEqual(Object.fromEntries(rows), HTTP_STATUS);
  assert.equal(rows.length, Object.keys(HTTP_STATUS).length, 'each code once');
});
