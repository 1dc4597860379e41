import { readLabRow } from '../../db/lab-rows';
import { checkHistory, type Verdict } from '../model/checker/checker';
import { violationLines } from '../model/checker/checker-violations';
import type { LabEvent } from '../model/core/events';
import { toWire } from '../model/core/wire';
import type { LabInstance } from '../model/lab/lab-instance';
import type { StoryLine } from './story';
import { finalRowLine } from './told-run';

/**
 * The end of a story told on real workers: the lab's row as the database holds it, then the history
 * checker's verdict on the run's events (each violation, then the summary). Returns both, for the
 * story's own verdict.
 */
export async function sayRowAndChecker(lab: LabInstance, events: readonly LabEvent[], say: (line: StoryLine) => void) {
  const row = await readLabRow(lab);
  say(finalRowLine(row));
  const checked: Verdict = checkHistory(
    events.map(toWire),
    row ? { value: row.value, lastToken: row.lastToken } : undefined,
  );
  for (const violation of checked.violations) {
    say({ step: 'violation', text: violationLines(violation).join('\n'), ...violation });
  }
  say({
    step: 'checker',
    text: checked.ok
      ? `checker: no violation in ${checked.checked.writes} accepted writes and ${checked.checked.grants} grants`
      : `checker: ${checked.violations.length} violation${checked.violations.length === 1 ? '' : 's'}`,
    ok: checked.ok,
    checked: checked.checked,
  });
  return { row, checked };
}
