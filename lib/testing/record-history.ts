import { writeFile } from 'node:fs/promises';
import { listEvents } from '../../db/events';
import { closePool } from '../../db/pool';
import { sharedLab } from '../model/lab-instance';
import type { LabId } from '../model/lab-kinds';
import { toWire } from '../model/wire';
import { runDelayedPacketScenario } from '../scenario/delayed-packet';
import { runDriftScenario } from '../scenario/drift';
import { runPauseScenario } from '../scenario/pause';
import { getSupervisor } from '../supervisor/supervisor';

/*
 * Records a real history for the pure model's tests: runs a lab's scenario with real workers
 * and writes its events (as the browser receives them) to a JSON file.
 * Usage: DATABASE_URL=… record-history.ts <lab> <file>
 */
const [lab, file] = process.argv.slice(2) as [LabId, string];
try {
  // The drifting clock and the delayed packet tell their own stories (nothing freezes); every other lab, the pause.
  const scenario =
    lab === 'drifting-clock'
      ? runDriftScenario
      : lab === 'delayed-packet' || lab === 'delayed-packet-unfenced'
        ? runDelayedPacketScenario
        : runPauseScenario;
  await scenario(sharedLab(lab), () => undefined);
  const events = (await listEvents({ lab })).map(toWire);
  await writeFile(file, `${JSON.stringify(events, null, 1)}\n`);
  console.log(`${events.length} events from the ${lab} lab written to ${file}`);
} finally {
  await getSupervisor().shutdown();
  await closePool();
}
