import 'server-only';
import path from 'node:path';
import { listEvents } from '../../db/events';
import { checkHistory } from '../model/checker/checker';
import { verdictLine } from '../model/checker/checker-report';
import { violationLines } from '../model/checker/checker-violations';
import { toWire } from '../model/core/wire';
import { FAILOVER_LAB } from '../model/failover/failover-events';
import { failoverStepWords, failoverStory, failoverWalkthrough } from '../model/failover/failover-walkthrough';
import { clearFailoverHistory, recordFailoverStep } from '../supervisor/failover/failover-history';
import { runFailoverStory } from '../supervisor/failover/failover-story';
import { type ReplicaPair, type ReplicationMode, startReplicaPair } from '../supervisor/failover/replica-pair';
import type { ScenarioOutcome, StoryLine, StoryPrinter } from './story';

/*
 * `npm run scenario -- failover [--sync] [--grants-past-cut N]`: the failover story on a primary
 * and a standby of its own (under the app's data directory, removed at the end), recorded as the
 * failover lab's events in the app's database (it replaces that lab's last story, as a start of the
 * lab does), and told as the lab's page tells it: the failover walkthrough's words for each step, read
 * from the events recorded there once the pair is gone, then the one checker's verdict on them. A
 * step's JSON line carries what the lab recorded for it (the grant, the write, the promotion).
 */

let running: ReplicaPair | undefined;

/** Stops the pair of a run in progress (an interrupted scenario). */
export async function stopFailoverPair(): Promise<void> {
  await running?.stop();
}

export async function runFailoverScenario(
  options: { mode: ReplicationMode; grantsPastCut: number; dataDir: string },
  print: StoryPrinter,
): Promise<ScenarioOutcome> {
  const lines: StoryLine[] = [];
  const say = (line: StoryLine) => {
    lines.push(line);
    print(line);
  };
  await clearFailoverHistory();
  running = await startReplicaPair({ mode: options.mode, parentDir: path.join(options.dataDir, FAILOVER_LAB) });
  try {
    await runFailoverStory(running, { grantsPastCut: options.grantsPastCut, record: recordFailoverStep });
  } finally {
    await running.stop();
    running = undefined;
  }
  const events = (await listEvents({ lab: FAILOVER_LAB })).map(toWire);
  const walkthrough = failoverWalkthrough(options.mode);
  const story = failoverStory(walkthrough, events);
  walkthrough.forEach((step, index) => {
    const words = failoverStepWords(walkthrough, events, index);
    if (!words.done) return;
    const record = story.done[index];
    say({
      ...record,
      step: record?.kind ?? 'walkthrough-verdict',
      n: index + 1,
      title: step.title,
      narration: words.text,
      text: `${index + 1}. ${step.title}\n   ${words.text}`,
    });
  });
  const checked = checkHistory(events);
  for (const violation of checked.violations) {
    say({
      step: 'violation',
      rule: violation.rule,
      kinds: violation.kinds,
      text: violationLines(violation).join('\n'),
    });
  }
  const mode = options.mode === 'sync' ? 'synchronous replication' : 'asynchronous replication';
  const line = verdictLine(checked);
  const verdict = checked.ok
    ? `safe (failover, ${mode}) (the checker): ${line.replace(/^SAFE: /, '')}`
    : `UNSAFE (failover, ${mode}) (the checker): ${line.replace(/^UNSAFE: /, '')}`;
  say({ step: 'verdict', safe: checked.ok, ok: checked.ok, checked: checked.checked, text: verdict });
  return { safe: checked.ok, verdict, lines };
}
