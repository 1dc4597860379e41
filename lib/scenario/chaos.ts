import 'server-only';
import { type ChaosRequest, runChaos } from '../chaos/run-chaos';
import { describeTotals } from '../model/chaos/chaos-tally';
import { violationLines } from '../model/checker/checker-violations';
import { labTitle } from '../model/lab/lab-instance';
import { refuseIfInUse } from './pause';
import type { ScenarioOutcome, StoryLine, StoryPrinter } from './story';

/** `npm run scenario -- chaos …`: a seeded chaos run, its progress, and the checker's verdict. */
export async function runChaosScenario(
  request: Omit<ChaosRequest, 'onProgress' | 'onAction'>,
  print: StoryPrinter,
): Promise<ScenarioOutcome> {
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  say({
    step: 'chaos',
    text: `chaos: seed ${request.seed}, ${request.workers} workers, ${request.seconds} s, ${labTitle(request.lab)} lab${request.crashDatabase ? ', with a database crash half-way' : ''}`,
    seed: request.seed,
    workers: request.workers,
    seconds: request.seconds,
    lab: request.lab.id,
  });
  await refuseIfInUse(request.lab);
  const report = await runChaos({
    ...request,
    onAction: (action, outcome) =>
      say({ step: 'action', text: `  t+${(action.at / 1000).toFixed(1)} s: ${outcome}`, action, outcome }),
    onProgress: (p) =>
      say({
        step: 'progress',
        text: `  … ${Math.round(p.elapsedMs / 1000)} s: ${p.staleAttempts} stale attempts (${p.staleAccepted} accepted), ${p.accepted} writes accepted, ${p.grants} grants`,
        ...p,
      }),
  });
  const t = report.totals;
  say({
    step: 'totals',
    text: `totals: ${describeTotals(t)}; ${report.skipped.length} of ${report.planned} planned actions skipped`,
    ...t,
    planned: report.planned,
    skipped: report.skipped.length,
  });
  if (report.finalRow) {
    say({
      step: 'final',
      text: `final: row value ${JSON.stringify(report.finalRow.value)} last_token ${report.finalRow.lastToken}`,
      ...report.finalRow,
    });
  }
  for (const violation of report.verdict.violations) {
    say({ step: 'violation', text: violationLines(violation).join('\n'), ...violation });
  }
  const safe = report.verdict.ok;
  say({
    step: 'verdict',
    text: safe
      ? `safe: the checker found no violation in ${report.verdict.checked.writes} accepted writes and ${report.verdict.checked.grants} grants`
      : `UNSAFE: the checker found ${report.verdict.violations.length} violation${report.verdict.violations.length === 1 ? '' : 's'}`,
    safe,
  });
  return { safe, verdict: lines.at(-1)?.text ?? '', lines };
}
