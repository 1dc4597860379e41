import 'server-only';
import { type ClientRun, findClientRun, listClientRuns, readClientRunHistory } from '../../db/client-runs';
import { languageOf, runFaults, runnerLabel, type WallClientRun } from '../model/checker/client-runs';
import { toWire } from '../model/core/wire';
import { type HistoryFile, toHistoryFile } from '../model/history/history-file';
import { summaryTitle } from '../model/lab/lab-instance';
import { type Credentials, isTrainer, ownerHashOf, traineeKeyOf } from './access';

/*
 * Who sees which clients on the class wall (issue 36, item 6): the trainer every run in the room
 * (for the projector), anyone else only the runs of their own lines and private labs. A person is
 * shown by a key made from the owner's hash (the guard wall's), never by the hash itself.
 */

const WALL_RUNS = 200;

const titleOf = (run: ClientRun) =>
  summaryTitle({ id: run.lab, kind: run.kind, visibility: run.visibility, closed: false });

/** Whose runs the caller sees: everyone's (undefined) for the trainer, else its own hash; null: none. */
function viewerOf(credentials: Credentials): string | undefined | null {
  if (isTrainer(credentials)) return undefined;
  return credentials.ownerSecret ? ownerHashOf(credentials.ownerSecret) : null;
}

async function wallRun(run: ClientRun): Promise<WallClientRun> {
  const history = run.ended && run.hasHistory ? await readClientRunHistory(run.id) : undefined;
  return {
    id: run.id,
    ...(run.holder ? { trainee: traineeKeyOf(run.holder) } : {}),
    ...(run.name ? { name: run.name } : {}),
    lab: run.lab,
    labTitle: titleOf(run),
    actor: run.actor,
    program: run.program,
    language: languageOf(run.program),
    state: run.ended ? 'ended' : run.beating ? 'running' : 'silent',
    ...(run.ended
      ? {
          ended: {
            how:
              run.ended.kind === 'worker_crashed' ? 'crashed' : run.ended.kind === 'replaced' ? 'replaced' : 'stopped',
            reason: run.ended.reason,
          },
        }
      : {}),
    faults: history ? runFaults(history.map(toWire), run.actor) : [],
    hasHistory: history !== undefined,
    at: run.startedAt.getTime(),
  };
}

export async function wallClientRunsFor(credentials: Credentials): Promise<WallClientRun[]> {
  const viewer = viewerOf(credentials);
  if (viewer === null) return [];
  const runs = await listClientRuns({ ...(viewer ? { holder: viewer } : {}), limit: WALL_RUNS });
  return Promise.all(runs.map(wallRun));
}

/** One new or changed run (started, ended), if the caller may see it. */
export async function wallClientRunFor(id: number, credentials: Credentials): Promise<WallClientRun | undefined> {
  const viewer = viewerOf(credentials);
  if (viewer === null) return undefined;
  const run = await findClientRun(id);
  if (!run || (viewer !== undefined && run.holder !== viewer)) return undefined;
  return wallRun(run);
}

const clientRunId = (raw: unknown): number | undefined => {
  const id = typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : undefined;
  return id !== undefined && Number.isSafeInteger(id) ? id : undefined;
};

/**
 * A client run's history, for /replay?client=…: to the person who ran it, and to the trainer (the
 * wall's link). Anyone else, a bad id, or a run still going gets nothing.
 */
export async function clientRunFileFor(
  raw: unknown,
  credentials: Credentials,
): Promise<{ file: HistoryFile; fileName: string; run: WallClientRun } | undefined> {
  const id = clientRunId(raw);
  if (id === undefined) return undefined;
  const run = await wallClientRunFor(id, credentials);
  if (!run?.hasHistory) return undefined;
  const events = (await readClientRunHistory(id)) ?? [];
  const found = await findClientRun(id);
  if (!found) return undefined;
  const file = toHistoryFile({
    lab: {
      id: run.lab,
      kind: found.kind,
      title: `${run.labTitle}: ${run.actor} ran ${run.program} (${runnerLabel(run)})`,
    },
    events: events.map(toWire),
    exportedAt: new Date(),
  });
  return { file, fileName: `fencing-lab-client-run-${id}-${run.lab}-${run.actor}.json`, run };
}
