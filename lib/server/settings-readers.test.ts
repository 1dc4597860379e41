import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settingsProblems } from '../model/core/room-settings';
import { warmWorkersFromEnv } from '../supervisor/warm-workers';
import { limitFromEnv } from './feed-slots';

/*
 * What `npm start`'s check lets through (lib/model/core/room-settings.ts), the readers at run time
 * take as the same number: a value the check passed must never fail the first request that reads it.
 */

test('every value the start check passes, the run-time readers take as the same number', (t) => {
  const saved = process.env.FENCING_LAB_MAX_FEEDS;
  t.after(() => {
    if (saved === undefined) delete process.env.FENCING_LAB_MAX_FEEDS;
    else process.env.FENCING_LAB_MAX_FEEDS = saved;
  });
  for (const raw of ['1', '64', '400', '999999', ' 4', '4 ', ' ', '1e3', '+5', '5.']) {
    process.env.FENCING_LAB_MAX_FEEDS = raw;
    const passes = settingsProblems({ FENCING_LAB_MAX_FEEDS: raw }).length === 0;
    if (passes) assert.equal(limitFromEnv('FENCING_LAB_MAX_FEEDS', 1), Number(raw), JSON.stringify(raw));
    else assert.ok(!/^\d+$/.test(raw) || Number(raw) < 1, `${JSON.stringify(raw)} refused though usable`);
  }
  for (const raw of ['0', '2', '8', ' 2', '008', '9']) {
    const env = { FENCING_LAB_WARM_WORKERS: raw } as unknown as NodeJS.ProcessEnv;
    if (settingsProblems(env).length === 0) assert.equal(warmWorkersFromEnv(env), Number(raw), JSON.stringify(raw));
  }
});
