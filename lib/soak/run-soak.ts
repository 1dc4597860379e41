import 'server-only';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runChaos } from '../chaos/run-chaos';
import { describeTotals, tallyChaos } from '../model/chaos/chaos-tally';
import { checkHistory } from '../model/checker/checker';
import { parseHistoryFile, serializeHistory } from '../model/history/history-file';
import { sharedLab } from '../model/lab/lab-instance';
import { isFencedKind, LABS, WORKER_LAB_IDS, type WorkerLabId } from '../model/lab/lab-kinds';
import { type SoakLabResult, type SoakResult, soakHtml, soakMarkdown } from '../model/soak/soak-report';
import { soakHistoryHref } from '../model/soak/soak-reports';
import { judgeLab, judgementSettled, LAB_EXPECTATIONS } from '../model/soak/soak-verdict';

/** Workers per lab: the goal of issue 14 is stated for five. */
const SOAK_WORKERS = 5;
/** No lab gets less: its workers take a second or two to start, and a story needs a few leases. */
const MIN_SECONDS_PER_LAB = 8;
/**
 * Shares of the soak's time: the proof is in the fenced labs, which get three each; a broken lab
 * shows its damage within seconds, and gets one.
 */
const FENCED_SHARES = 3;

function secondsPerLab(minutes: number): Map<WorkerLabId, number> {
  const shares = (kind: WorkerLabId) => (isFencedKind(kind) ? FENCED_SHARES : 1);
  const total = WORKER_LAB_IDS.reduce((sum, kind) => sum + shares(kind), 0);
  return new Map(
    WORKER_LAB_IDS.map((kind) => [
      kind,
      Math.max(MIN_SECONDS_PER_LAB, Math.floor((minutes * 60 * shares(kind)) / total)),
    ]),
  );
}

export type SoakRequest = {
  id: string;
  seed: number;
  minutes: number;
  /** Where the report goes: a directory of its own, named by the id. */
  reportDir: string;
  crashDatabase: () => Promise<void>;
  say: (line: string) => void;
};

/**
 * Aimed chaos in every lab, one after the other, for `minutes` in all (each lab its share, with its
 * own seed: the soak's seed plus the lab's place in WORKER_LAB_IDS), database crashes included; then each lab judged
 * against what it is named for, and the report written with each lab's history beside it.
 */
export async function runSoak(request: SoakRequest): Promise<SoakResult> {
  const { id, seed, minutes, say } = request;
  const startedAt = new Date();
  const load = { start: os.loadavg().map(round2), end: [] as number[], cpus: os.cpus().length };
  const share = secondsPerLab(minutes);
  await mkdir(request.reportDir, { recursive: true });
  const labs: SoakLabResult[] = [];
  for (const [place, kind] of WORKER_LAB_IDS.entries()) {
    const labSeed = seed + place;
    const seconds = share.get(kind) ?? MIN_SECONDS_PER_LAB;
    say(`${kind}: seed ${labSeed}, ${SOAK_WORKERS} workers, ${seconds} s…`);
    const lab = sharedLab(kind);
    const report = await runChaos({
      lab,
      seed: labSeed,
      workers: SOAK_WORKERS,
      seconds,
      crashDatabase: request.crashDatabase,
      // Under load a lab makes fewer leases in its seconds: it goes on until its judgement is settled.
      enough: (events) => judgementSettled(kind, checkHistory(events), tallyChaos(events, 0)),
      onMore: (round, more) => say(`  not settled yet: ${more} s more (round ${round})`),
    });
    const judgement = judgeLab(kind, report.verdict, report.totals);
    const historyFile = `history-${kind}.json`;
    const title = LABS[kind].title;
    const history = serializeHistory({ lab: { id: kind, kind, title }, events: report.events, exportedAt: new Date() });
    // Read back as /replay reads a file: a history it would refuse fails the soak here, not a reader later.
    const readBack = parseHistoryFile(history);
    if (!readBack.ok) throw new Error(`${kind}: the exported history would not open in /replay: ${readBack.error}`);
    await writeFile(path.join(request.reportDir, historyFile), history);
    const namedIds = new Set(report.verdict.violations.flatMap((v) => v.eventIds));
    labs.push({
      lab: kind,
      title,
      seed: labSeed,
      seconds: report.plannedSeconds,
      rounds: report.rounds,
      workers: SOAK_WORKERS,
      totals: report.totals,
      violations: report.verdict.violations,
      named: report.events.filter((e) => namedIds.has(e.id)),
      judgement,
      expected: LAB_EXPECTATIONS[kind].why,
      historyFile,
    });
    say(`  ${describeTotals(report.totals)}`);
    say(`  ${judgement.ok ? 'as expected' : 'NOT AS EXPECTED'}: ${judgement.says}`);
  }
  load.end = os.loadavg().map(round2);
  const soak: SoakResult = {
    id,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    seed,
    minutes,
    load,
    labs,
  };
  await writeFile(path.join(request.reportDir, 'report.md'), soakMarkdown(soak));
  await writeFile(
    path.join(request.reportDir, 'report.html'),
    soakHtml(soak, (lab) => soakHistoryHref(id, lab)),
  );
  await writeFile(path.join(request.reportDir, 'report.json'), `${JSON.stringify(soak, null, 2)}\n`);
  return soak;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
