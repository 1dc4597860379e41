import 'server-only';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LabId } from '../model/lab/lab-kinds';
import { type SoakResult, soakOk, soakTotals } from '../model/soak/soak-report';
import { isSoakId } from '../model/soak/soak-reports';
import { dataSubdir } from './data-dir';

/*
 * The soak reports `npm run soak` wrote in the app's data directory (<data>/soak/<id>/). A report is
 * found by its id, checked against the id's pattern before it becomes part of a path, and a lab's
 * history by a lab id from the closed list: nothing a client sends is used as a path.
 */

/** `npm run soak` writes under the launcher's data directory. */
const soakRoot = () => dataSubdir('soak');

export type SoakReportSummary = {
  id: string;
  startedAt: string;
  minutes: number;
  seed: number;
  ok: boolean;
  staleAttempts: number;
  staleAcceptedFenced: number;
};

export async function listSoakReports(): Promise<SoakReportSummary[]> {
  // No soak run yet: no reports.
  const ids = (await readdir(soakRoot()).catch(() => [] as string[])).filter(isSoakId).sort().reverse();
  const found = await Promise.all(
    ids.map(async (id) => {
      const soak = await readSoak(id);
      if (!soak) return undefined;
      const t = soakTotals(soak);
      return {
        id,
        startedAt: soak.startedAt,
        minutes: soak.minutes,
        seed: soak.seed,
        ok: soakOk(soak),
        staleAttempts: t.staleAttempts,
        staleAcceptedFenced: t.staleAcceptedFenced,
      };
    }),
  );
  return found.filter((s): s is SoakReportSummary => s !== undefined);
}

async function readSoak(id: string): Promise<SoakResult | undefined> {
  const text = await readReportFile(id, 'report.json');
  try {
    return text === undefined ? undefined : (JSON.parse(text) as SoakResult);
  } catch {
    // A report being written or torn: left out of the list.
    return undefined;
  }
}

/** The report's page, or nothing if there is no such report. */
export async function readSoakHtml(id: string): Promise<string | undefined> {
  return readReportFile(id, 'report.html');
}

/** A lab's history from a report, as /replay imports it. */
export async function readSoakHistory(id: string, lab: LabId): Promise<string | undefined> {
  return readReportFile(id, `history-${lab}.json`);
}

async function readReportFile(id: string, name: string): Promise<string | undefined> {
  if (!isSoakId(id)) return undefined;
  // No such report or file: the route answers not_found.
  return readFile(path.join(soakRoot(), id, name), 'utf8').catch(() => undefined);
}
