import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { listEvents } from '../../db/events';
import { closePool } from '../../db/pool';
import { toWire } from '../model/core/wire';
import { sharedLab } from '../model/lab/lab-instance';
import type { LabId } from '../model/lab/lab-kinds';
import { runDelayedPacketScenario } from '../scenario/delayed-packet';
import { runDriftScenario } from '../scenario/drift';
import { runFailoverScenario } from '../scenario/failover';
import { runPauseScenario } from '../scenario/pause';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * Records a real history for the pure model's tests: runs a lab's scenario with real workers
 * and writes its events (as the browser receives them) to a JSON file.
 * Usage: DATABASE_URL=… record-history.ts <lab> <file>. The failover lab's: its asynchronous story
 * with 40 grants past the cut, on a pair of its own in a temporary directory.
 */
const [lab, file] = process.argv.slice(2) as [LabId, string];
try {
  // The drifting clock and the delayed packet tell their own stories (nothing freezes); every other lab, the pause.
  const scenario =
    lab === 'drifting-clock' || lab === 'drifting-clock-fenced'
      ? runDriftScenario
      : lab === 'delayed-packet' || lab === 'delayed-packet-unfenced'
        ? runDelayedPacketScenario
        : runPauseScenario;
  if (lab === 'failover') {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-record-'));
    await runFailoverScenario({ mode: 'async', grantsPastCut: 40, dataDir }, () => undefined).finally(() =>
      rm(dataDir, { recursive: true, force: true }),
    );
  } else {
    await scenario(sharedLab(lab), () => undefined);
  }
  const events = (await listEvents({ lab })).map(toWire);
  await writeFile(file, `${JSON.stringify(events, null, 1)}\n`);
  console.log(`${events.length} events from the ${lab} lab written to ${file}`);
} finally {
  await getSupervisor().shutdown();
  await closePool();
}
