import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isFencingError } from './errors';
import { isBigintText, isNewerThan, MAX_TOKEN, parseStoredToken, parseToken, requireToken } from './token';

describe('tokens are integers end to end', () => {
  test('BIGINT text from pg compares as numbers, not as text', () => {
    // The trap from the seed's troubleshooting: as text, "10" sorts before "9".
    assert.equal('10' < '9', true);
    assert.equal(isNewerThan(parseToken('10'), parseToken('9')), true);
    assert.equal(isNewerThan(parseToken('9'), parseToken('10')), false);
    assert.equal(parseToken('9007199254740991'), MAX_TOKEN);
  });

  test('pg text, numbers and bigints all read as the same number', () => {
    assert.equal(parseToken('42'), 42);
    assert.equal(parseToken(42), 42);
    assert.equal(parseToken(42n), 42);
    assert.equal(parseStoredToken('0'), 0);
  });

  for (const bad of [
    0,
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 53,
    '9007199254740992',
    'abc',
    '',
    '07',
    ' 7',
    null,
    undefined,
    {},
    -3n,
  ]) {
    test(`rejects ${label(bad)} with invalid_input`, () => {
      assert.throws(
        () => parseToken(bad),
        (error) => isFencingError(error, 'invalid_input') && /token must be a whole number/.test(error.message),
      );
    });
  }

  test('BIGINT text is digits with no leading zero, however long; anything else is not', () => {
    for (const good of ['0', '7', '9007199254740992', '99999999999999999999'])
      assert.equal(isBigintText(good), true, good);
    for (const bad of ['', '07', ' 7', '-1', '1.5', '1e3', 7, 7n, null])
      assert.equal(isBigintText(bad), false, label(bad));
    // Past 2^53 it is still whole text, but not a token: parseToken keeps its own length.
    assert.throws(
      () => parseToken('9007199254740992'),
      (error) => isFencingError(error, 'invalid_input'),
    );
  });

  test('a caller must hand in a number: "7" as text is refused, even though it looks right', () => {
    assert.equal(requireToken(7), 7);
    assert.throws(
      () => requireToken('7'),
      (error) => isFencingError(error, 'invalid_input') && /must be a number, got string "7"/.test(error.message),
    );
    assert.throws(
      () => requireToken(7n),
      (error) => isFencingError(error, 'invalid_input'),
    );
  });
});

function label(raw: unknown): string {
  if (typeof raw === 'bigint') return `${raw}n`;
  if (typeof raw === 'string') return JSON.stringify(raw);
  if (typeof raw === 'object' && raw !== null) return JSON.stringify(raw);
  return String(raw);
}
