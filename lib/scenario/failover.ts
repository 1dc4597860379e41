import 'server-only';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { recordFailoverStep } from '../../db/failover-steps';
import { checkFailover, type FailoverStep } from '../model/failover-checker';
import { describeFailoverStep } from '../model/failover-story-lines';
import { runFailoverStory } from '../supervisor/failover/failover-story';
import { type ReplicaPair, type ReplicationMode, startReplicaPair } from '../supervisor/failover/replica-pair';
import type { ScenarioOutcome, StoryLine, StoryPrinter } from './story';

/*
 * `npm run scenario -- failover [--sync] [--grants-past-cut N]`: the failover story on a primary
 * and a standby of its own (under the app's data directory, removed at the end), its history
 * recorded in the app's database (failover_steps), judged by the checker.
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
  const run = randomUUID();
  const steps: FailoverStep[] = [];
  running = await startReplicaPair({ mode: options.mode, parentDir: path.join(options.dataDir, 'failover') });
  try {
    await runFailoverStory(running, {
      grantsPastCut: options.grantsPastCut,
      record: async (step) => {
        steps.push(step);
        await recordFailoverStep(run, step);
        say({ ...step, step: step.kind, text: describeFailoverStep(step) });
      },
    });
  } finally {
    await running.stop();
    running = undefined;
  }
  const violations = checkFailover(steps);
  for (const violation of violations) {
    say({ step: 'checker', kind: violation.kind, text: `checker: ${violation.kind}: ${violation.message}` });
  }
  const mode = options.mode === 'sync' ? 'synchronous replication' : 'asynchronous replication';
  const verdict = violations.length
    ? `UNSAFE (failover, ${mode}): ${violations.length} violation${violations.length === 1 ? '' : 's'}, recorded as run ${run}`
    : `safe (failover, ${mode}): nothing acknowledged was lost, no token was handed out twice, the stale write was rejected (run ${run})`;
  say({ step: 'verdict', run, safe: violations.length === 0, text: verdict });
  return { safe: violations.length === 0, verdict, lines };
}
