import { checkHistory, type Verdict } from '../model/checker/checker';
import { verdictLine } from '../model/checker/checker-report';
import { violationLines } from '../model/checker/checker-violations';
import type { WireEvent } from '../model/core/wire';
import type { LabId } from '../model/lab/lab-kinds';
import type { RowNow } from '../model/walkthrough/narration';
import { factsFrom, type Step } from '../model/walkthrough/walkthrough';
import type { StoryLine } from './story';

/*
 * A story run on real workers, told the way the walkthrough tells it and judged the way the checker
 * judges it (issue 34: one engine for the words, one for the verdict). Pure: the scenario reads the
 * events and the row, this says them. Nothing here decides safe or unsafe but the checker.
 */

/** The walkthrough's words for each step the run went through, read from the run's events and the row. */
export function narratedSteps(
  steps: readonly Step[],
  lab: LabId,
  events: readonly WireEvent[],
  row: RowNow | undefined,
): StoryLine[] {
  const facts = factsFrom(events, lab);
  return steps.map((step, index) => {
    const narration = step.narrate(facts, row);
    return {
      step: step.id,
      n: index + 1,
      title: step.title,
      narration,
      text: `${index + 1}. ${step.title}\n   ${narration}`,
    };
  });
}

/** The row line, the checker's violations, and its verdict as the story's: `safe` is the checker's `ok`. */
export function checkerVerdict(
  title: string,
  lab: string,
  events: readonly WireEvent[],
  row: (RowNow & { table?: string; id?: number }) | undefined,
): { lines: StoryLine[]; verdict: string; safe: boolean; checked: Verdict } {
  const checked = checkHistory(events, row && { value: row.value, lastToken: row.lastToken });
  const final = finalRowLine(row);
  const violations = checked.violations.map(
    (violation): StoryLine => ({ step: 'violation', text: violationLines(violation).join('\n'), ...violation }),
  );
  const verdict = checked.ok
    ? `safe (the checker): ${verdictLine(checked).replace(/^SAFE: /, '')}`
    : `UNSAFE (${title}) (the checker): ${verdictLine(checked).replace(/^UNSAFE: /, '')}: ${checked.violations.map((v) => v.message).join('; ')}`;
  const line: StoryLine = {
    step: 'verdict',
    text: verdict,
    safe: checked.ok,
    lab,
    ok: checked.ok,
    checked: checked.checked,
  };
  return { lines: [final, ...violations, line], verdict, safe: checked.ok, checked };
}

/** The `final` line: the row as the run left it in the database. */
export function finalRowLine(
  row: { table?: string | undefined; id?: number | undefined; value: string; lastToken: number } | undefined,
): StoryLine {
  return {
    step: 'final',
    text: `final: ${row?.table} row ${row?.id} value ${JSON.stringify(row?.value)} last_token ${row?.lastToken}`,
    table: row?.table,
    rowId: row?.id,
    value: row?.value,
    lastToken: row?.lastToken,
  };
}
