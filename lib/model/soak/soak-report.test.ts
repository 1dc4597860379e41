import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tallyChaos } from '../chaos/chaos-tally';
import type { Violation } from '../checker/checker';
import { ofWrite } from '../checker/checker-violations';
import type { WireEvent } from '../core/wire';
import { type SoakLabResult, type SoakResult, soakHtml, soakMarkdown, soakOk, soakTotals } from './soak-report';
import { isSoakId, soakReportId } from './soak-reports';
import { judgeLab, judgementSettled } from './soak-verdict';

const counts = (staleAttempts: number, staleAccepted: number) => ({
  ...tallyChaos([], 60_000),
  staleAttempts,
  staleAccepted,
  heldConnections: 0,
  databaseCrashes: 3,
});

const lostUpdate: Violation = ofWrite(
  { id: 12, at: Date.UTC(2026, 11, 1, 3, 0, 1), actor: 'A', token: 8, value: 'A-2' },
  { id: 11, at: Date.UTC(2026, 11, 1, 3, 0, 0), actor: 'B', token: 9, value: 'B-1' },
  [{ rule: 'token-went-back', kind: 'the row went back', message: "the row's token went back", eventIds: [11, 12] }],
);

const event = (id: number, actor: string, token: number, value: string): WireEvent => ({
  id,
  lab: 'no-fencing',
  at: Date.UTC(2026, 11, 1, 3, 0, id - 10),
  actor,
  kind: 'write_accepted',
  token,
  detail: { value },
});

test('each lab is judged against what it is named for', () => {
  assert.equal(judgeLab('fenced', { violations: [] }, counts(120, 0)).ok, true);
  assert.match(judgeLab('fenced', { violations: [] }, counts(0, 0)).says, /unproven: no stale write was attempted/);
  assert.equal(judgeLab('fenced', { violations: [lostUpdate] }, counts(120, 1)).ok, false);
  assert.equal(judgeLab('no-fencing', { violations: [lostUpdate] }, counts(50, 50)).ok, true);
  const quiet = judgeLab('no-fencing', { violations: [] }, counts(0, 0));
  assert.deepEqual(quiet, { ok: false, says: 'not as named: expected token-went-back, found no violation' });
  assert.equal(
    judgeLab('token-as-text', { violations: [lostUpdate] }, counts(5, 5)).ok,
    false,
    'another rule will not do',
  );
});

test('a lab whose judgement more chaos could still change is not settled; one that let a stale write through is', () => {
  // Settled: as expected, or a fenced lab that failed (more time cannot take a lost update back).
  assert.equal(judgementSettled('fenced', { violations: [] }, counts(3, 0)), true);
  assert.equal(judgementSettled('fenced', { violations: [lostUpdate] }, counts(3, 1)), true);
  assert.equal(judgementSettled('fenced', { violations: [] }, counts(3, 1)), true);
  assert.equal(judgementSettled('no-fencing', { violations: [lostUpdate] }, counts(1, 1)), true);
  // Not yet: nothing stale attempted, or the named mistake not shown (another rule will not do).
  assert.equal(judgementSettled('fenced', { violations: [] }, counts(0, 0)), false);
  assert.equal(judgementSettled('no-fencing', { violations: [] }, counts(0, 0)), false);
  assert.equal(judgementSettled('token-as-text', { violations: [lostUpdate] }, counts(5, 5)), false);
});

test('the report names every violation with its events, escapes what it shows, and links histories by id', () => {
  const lab = (over: Partial<SoakLabResult>): SoakLabResult => ({
    lab: 'fenced',
    title: 'Fenced',
    seed: 1,
    seconds: 60,
    rounds: 1,
    workers: 5,
    totals: counts(120, 0),
    violations: [],
    named: [],
    judgement: judgeLab('fenced', { violations: [] }, counts(120, 0)),
    expected: 'every stale write rejected',
    historyFile: 'history-fenced.json',
    ...over,
  });
  const broken = lab({
    lab: 'no-fencing',
    title: 'No <fencing>',
    seed: 2,
    totals: counts(50, 50),
    violations: [lostUpdate],
    named: [event(11, 'B', 9, 'B-1'), event(12, 'A', 8, 'A-7')],
    judgement: judgeLab('no-fencing', { violations: [lostUpdate] }, counts(50, 50)),
    historyFile: 'history-no-fencing.json',
  });
  const soak: SoakResult = {
    id: soakReportId(new Date(Date.UTC(2026, 11, 1, 3, 12, 0)), 1),
    startedAt: '2026-12-01T03:12:00.000Z',
    finishedAt: '2026-12-01T03:14:00.000Z',
    seed: 1,
    minutes: 2,
    load: { start: [1, 2, 3], end: [4, 5, 6], cpus: 2 },
    labs: [lab({}), broken],
  };
  assert.equal(soak.id, '20261201-031200-seed1');
  assert.ok(isSoakId(soak.id) && !isSoakId('../../etc') && !isSoakId(`${soak.id}/x`));
  assert.equal(soakOk(soak), true);
  assert.deepEqual(soakTotals(soak), { staleAttempts: 170, staleAcceptedFenced: 0, minutes: 2 });

  const markdown = soakMarkdown(soak);
  assert.match(markdown, /^# Soak 20261201-031200-seed1: every lab as expected/);
  assert.match(markdown, /170 stale writes attempted .* in 2\.0 minutes of chaos; in the fenced labs 0 accepted/);
  assert.match(
    markdown,
    /\| fenced \| 1 \| as expected: safe: 120 stale write attempts, every one rejected; 0 violations \| 120 \(120\) \| 0 \|/,
  );
  assert.match(
    markdown,
    /- \*\*token-went-back\*\*: lost update: B's value "B-1" .* — the row went back\n {2}- the row's token went back\n/,
  );
  assert.match(
    markdown,
    / {2}- #11 03:00:01\.000 B write_accepted token 9 "B-1"\n {2}- #12 03:00:02\.000 A write_accepted token 8 "A-7"/,
  );

  const html = soakHtml(soak, (l) => `/soak/${soak.id}/history/${l}`);
  assert.match(html, /<h2>No &lt;fencing&gt; \(no-fencing\)<\/h2>/);
  assert.doesNotMatch(html, /<fencing>/);
  assert.match(html, /href="\/soak\/20261201-031200-seed1\/history\/no-fencing" download/);
  assert.match(html, /<code>#12 03:00:02\.000 A write_accepted token 8 &quot;A-7&quot;<\/code>/);

  const failed = { ...soak, labs: [lab({ judgement: judgeLab('fenced', { violations: [] }, counts(0, 0)) })] };
  assert.equal(soakOk(failed), false);
  assert.match(soakMarkdown(failed), /^# Soak .*: NOT as expected/);

  // A lab that went on past its share says so beside its seed; one that did not, nothing.
  const longer = { ...soak, labs: [lab({ seconds: 26, rounds: 3 }), lab({ lab: 'no-fencing', seed: 2 })] };
  assert.match(soakMarkdown(longer), /\| fenced \| 1, 2 rounds more \(26 s in all\) \| as expected/);
  assert.match(soakMarkdown(longer), /\| no-fencing \| 2 \| /);
  assert.match(
    soakHtml(longer, () => '/x'),
    /<td>1, 2 rounds more \(26 s in all\)<\/td>/,
  );
});
