import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKED_SETTINGS, settingsProblems } from './room-settings';

test('unset, empty and usable settings are no problem', () => {
  assert.deepEqual(settingsProblems({}), []);
  assert.deepEqual(
    settingsProblems({
      FENCING_LAB_MAX_PRIVATE_LABS: '300',
      FENCING_LAB_IDLE_MINUTES: '0.5',
      FENCING_LAB_WARM_WORKERS: '0',
      FENCING_LAB_MAX_GUARD_ATTACKS: '64',
      FENCING_LAB_MAX_FEEDS: '',
    }),
    [],
  );
});

test('each unusable value is refused by name, with what it must be and what it got', () => {
  assert.deepEqual(settingsProblems({ FENCING_LAB_MAX_PRIVATE_LABS: 'lots' }), [
    'FENCING_LAB_MAX_PRIVATE_LABS must be a whole number from 1 to 999999 (got "lots")',
  ]);
  assert.deepEqual(settingsProblems({ FENCING_LAB_MAX_GUARD_ATTACKS: '65' }), [
    'FENCING_LAB_MAX_GUARD_ATTACKS must be a whole number from 1 to 64 (got "65")',
  ]);
  assert.deepEqual(settingsProblems({ FENCING_LAB_IDLE_MINUTES: '0' }), [
    'FENCING_LAB_IDLE_MINUTES must be a positive number of minutes (got "0")',
  ]);
  const several = settingsProblems({
    FENCING_LAB_OPENS_PER_ADDRESS: '-3',
    FENCING_LAB_WARM_WORKERS: '9',
    FENCING_LAB_RETENTION_HOURS: '1e9',
    FENCING_LAB_MAX_FEEDS: '2.5',
  });
  assert.equal(several.length, 4, several.join('\n'));
});

test('a value is usable only as written: the readers at run time trim nothing', () => {
  for (const raw of [' 4', '4 ', ' ', '008']) {
    assert.equal(settingsProblems({ FENCING_LAB_WARM_WORKERS: raw }).length, 1, JSON.stringify(raw));
  }
  assert.equal(settingsProblems({ PORT: ' ' }).length, 1, 'a port of spaces is not port 0');
});

test('every checked setting has a row in the settings table', async () => {
  const { readFile } = await import('node:fs/promises');
  const doc = await readFile(new URL('../../../docs/running-a-room.md', import.meta.url), 'utf8');
  for (const name of CHECKED_SETTINGS) assert.match(doc, new RegExp(`\\| \`${name}\` \\|`), name);
});

test('the port and the trainer key are checked too, and a key is never echoed back', () => {
  assert.deepEqual(settingsProblems({ PORT: '70000' }), ['PORT must be a whole number from 1 to 65535 (got "70000")']);
  const [short] = settingsProblems({ FENCING_LAB_TRAINER_KEY: 'letmein' });
  assert.match(short ?? '', /^FENCING_LAB_TRAINER_KEY must be at least 12 characters \(it has 7\)/);
  assert.doesNotMatch(short ?? '', /letmein/);
  assert.deepEqual(settingsProblems({ PORT: '3000', FENCING_LAB_TRAINER_KEY: 'a-long-enough-key' }), []);
});
