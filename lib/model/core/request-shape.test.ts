import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ACTION_NESTING_LIMIT,
  actionBodyTooLarge,
  actionRowRefusal,
  answersAsJson,
  isReplyRow,
  jsonNesting,
  malformedEscape,
  pathRefusal,
  refusalPage,
} from './request-shape';

test('a malformed percent-encoding in a path is named; a well-formed one is not', () => {
  assert.equal(malformedEscape('/labs/%ff'), '%ff');
  assert.equal(malformedEscape('/labs/%e0%a4/present'), '%e0%a4');
  assert.equal(malformedEscape('/labs/a%zz'), '%zz');
  assert.equal(malformedEscape('/labs/a%'), '%');
  assert.equal(malformedEscape('/labs/%41%ff'), '%41%ff');
  for (const ok of ['/', '/labs/fenced', '/labs/caf%C3%A9', '/soak/a%20b/history/x', '/a%2Fb']) {
    assert.equal(malformedEscape(ok), undefined, ok);
    assert.equal(pathRefusal(ok), undefined, ok);
  }
  const refused = pathRefusal('/api/labs/%ff/history');
  assert.equal(refused?.status, 400);
  assert.match(
    refused?.message ?? '',
    /^the address \/api\/labs\/%ff\/history has a malformed percent-encoding \(%ff\)/,
  );
});

test('route handlers’ paths are answered as JSON, every other path as a page that says where to go', () => {
  for (const path of ['/api/labs/%ff/history', '/api/%ff', '/soak/%ff/history/x']) assert.ok(answersAsJson(path), path);
  for (const path of ['/labs/%ff', '/soak/%ff', '/%ff', '/apix/%ff']) assert.ok(!answersAsJson(path), path);
  const page = refusalPage(400, 'the address /labs/<b>%ff has a malformed percent-encoding');
  assert.match(page, /<title>Fencing Lab: bad address \(400\)<\/title>/);
  assert.match(page, /The address \/labs\/&lt;b&gt;%ff has a malformed percent-encoding\./);
  assert.match(page, /<a href="\/">go to the home page<\/a>/);
});

test('a server action’s input: nesting measured without a stack, malformed JSON and a __proto__ key refused in words', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  assert.equal(jsonNesting(deep), ACTION_NESTING_LIMIT + 1);
  assert.equal(jsonNesting('[{"a":"[[[[{{{{\\"[["}]'), 2);
  assert.match(actionRowRefusal(deep)?.message ?? '', /nests deeper than 64 levels/);
  assert.equal(actionRowRefusal(`${'['.repeat(64)}${']'.repeat(64)}`), undefined);

  assert.match(actionRowRefusal('[{"lab":')?.message ?? '', /^the input is not JSON as a page of this app sends it \(/);
  assert.equal(actionRowRefusal('')?.status, 400);

  for (const body of ['[{"lab":"fenced","__proto__":{"x":1}}]', '[{"a":{"\\u005f_proto__":null}}]']) {
    assert.deepEqual(actionRowRefusal(body), {
      status: 400,
      message: 'the input has a field it does not take: __proto__',
    });
  }
  // A value that says __proto__ is a value, not a field.
  assert.equal(actionRowRefusal('[{"name":"__proto__"},["__proto__"]]'), undefined);
  assert.equal(actionRowRefusal('[{"lab":"fenced","settings":{"ttlMs":2000}}]'), undefined);
});

test('a body over the limit is a 413 in words; only numbered multipart fields are React’s rows', () => {
  assert.deepEqual(actionBodyTooLarge(5_000_000), {
    status: 413,
    message: "the request's body is too large (4.8 MB): a server action takes at most 1 MB",
  });
  assert.match(actionBodyTooLarge(undefined).message, /^the request's body is too large: /);
  assert.ok(isReplyRow('0') && isReplyRow('12'));
  assert.ok(!isReplyRow('1_name') && !isReplyRow('$ACTION_ID_x') && !isReplyRow(''));
});
