import 'server-only';
import path from 'node:path';
import { listEvents } from '../../db/events';
import { checkHistory } from '../model/checker/checker';
import { violationLines } from '../model/checker/checker-violations';
import { toWire } from '../model/core/wire';
import { FAILOVER_LAB } from '../model/failover/failover-events';
import { describeFailoverStep } from '../model/failover/failover-story-lines';
import { clearFailoverHistory, recordFailoverStep } from '../supervisor/failover/failover-history';
import { runFailoverStory } from '../supervisor/failover/failover-story';
import { type ReplicaPair, type ReplicationMode, startReplicaPair } from '../supervisor/failover/replica-pair';
import type { ScenarioOutcome, StoryLine, StoryPrinter } from './story';

/*
 * `npm run scenario -- failover [--sync] [--grants-past-cut N]`: the failover story on a primary
 * and a standby of its own (under the app's data directory, removed at the end), recorded as the
 * failover lab's events in the app's database (it replaces that lab's last story, as a start of the
 * lab does), and judged by the one checker on what was recorded there, once the pair is gone.
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
    await runFailoverStory(running, {
      grantsPastCut: options.grantsPastCut,
      record: async (step) => {
        await recordFailoverStep(step);
        say({ ...step, step: step.kind, text: describeFailoverStep(step) });
      },
    });
  } finally {
    await running.stop();
    running = undefined;
  }
  const events = (await listEvents({ lab: FAILOVER_LAB })).map(toWire);
  const { violations } = checkHistory(events);
  for (const violation of violations) {
    say({ step: 'checker', rule: violation.rule, text: violationLines(violation).join('\n') });
  }
  const mode = options.mode === 'sync' ? 'synchronous replication' : 'asynchronous replication';
  const recorded = `${events.length} events of the lab ${FAILOVER_LAB}`;
  const verdict = violations.length
    ? `UNSAFE (failover, ${mode}): ${violations.length} violation${violations.length === 1 ? '' : 's'}, recorded as ${recorded}`
    : `safe (failover, ${mode}): nothing acknowledged was lost, no token was handed out twice, the stale write was rejected (recorded as ${recorded})`;
  say({ step: 'verdict', safe: violations.length === 0, text: verdict });
  return { safe: violations.length === 0, verdict, lines };
}
