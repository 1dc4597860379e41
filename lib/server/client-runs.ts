import 'server-only';
import {
  type ClientRun,
  findClientRun,
  findClientRuns,
  listClientRuns,
  readClientRunEvents,
  setClientRunFaults,
} from '../../db/client-runs';
import { languageOf, runFaults, runnerLabel, type WallClientRun } from '../model/checker/client-runs';
import { toWire } from '../model/core/wire';
import { type HistoryFile, toHistoryFile } from '../model/history/history-file';
import { summaryTitle } from '../model/lab/lab-instance';
import { type Credentials, isTrainer, ownerHashOf, traineeKeyOf } from './access';

/*
 * Who sees which clients on the class wall (issue 36, item 6): the trainer every run in the room
 * (for the projector), anyone else only the runs of their own lines and private labs. A person is
 * shown by a key made from the owner's hash (the guard wall's), never by the hash itself. A run's
 * history is its lab's events between its start and its end: replayed to the trainer, and to its
 * person when the lab is one they may see (a shared lab, or a private lab of their own).
 */

const WALL_RUNS = 200;

type Viewer = { trainer: true } | { trainer: false; ownerHash: string };

const titleOf = (run: ClientRun) =>
  summaryTitle({ id: run.lab, kind: run.kind, visibility: run.visibility, closed: false });

/** Who the caller is to the wall: the trainer, a browser with its owner secret; undefined: no one it shows anything. */
function viewerOf(credentials: Credentials): Viewer | undefined {
  if (isTrainer(credentials)) return { trainer: true };
  return credentials.ownerSecret ? { trainer: false, ownerHash: ownerHashOf(credentials.ownerSecret) } : undefined;
}

const mayReplay = (run: ClientRun, viewer: Viewer) =>
  viewer.trainer || run.visibility === 'shared' || run.labOwner === viewer.ownerHash;

/**
 * What an ended run did wrong: kept on its row once worked out from its own lane's events (a few,
 * read once), so that a wall never reads a history. Undefined while it runs, and for a run whose
 * events a reset cleared before anyone looked.
 */
async function faultsOf(run: ClientRun): Promise<WallClientRun['faults']> {
  if (run.faults) return run.faults;
  if (!run.ended || !run.kept || run.ended.kind === 'replaced' || run.ended.kind === 'restarted') return undefined;
  const faults = runFaults((await readClientRunEvents(run, { actor: run.actor })).map(toWire), run.actor);
  await setClientRunFaults(run.id, faults);
  return faults;
}

async function wallRun(run: ClientRun, viewer: Viewer): Promise<WallClientRun> {
  const faults = await faultsOf(run);
  const how = run.ended?.kind;
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
              how === 'worker_crashed'
                ? 'crashed'
                : how === 'replaced' || how === 'restarted'
                  ? how
                  : ('stopped' as const),
            reason: run.ended.reason,
          },
        }
      : {}),
    ...(faults ? { faults } : {}),
    cleared: !run.kept,
    hasHistory: run.ended !== undefined && run.kept && mayReplay(run, viewer),
    at: run.startedAt.getTime(),
  };
}

export async function wallClientRunsFor(credentials: Credentials): Promise<WallClientRun[]> {
  const viewer = viewerOf(credentials);
  if (!viewer) return [];
  const runs = await listClientRuns({ ...(viewer.trainer ? {} : { holder: viewer.ownerHash }), limit: WALL_RUNS });
  return Promise.all(runs.map((run) => wallRun(run, viewer)));
}

async function visibleRun(id: number, viewer: Viewer): Promise<ClientRun | undefined> {
  const run = await findClientRun(id);
  if (!run || (!viewer.trainer && run.holder !== viewer.ownerHash)) return undefined;
  return run;
}

/** The runs with these ids the caller may see, read in one query (the wall's recheck of its runs not ended). */
export async function wallClientRunsById(ids: readonly number[], credentials: Credentials): Promise<WallClientRun[]> {
  const viewer = viewerOf(credentials);
  if (!viewer || ids.length === 0) return [];
  const runs = (await findClientRuns(ids)).filter((run) => viewer.trainer || run.holder === viewer.ownerHash);
  return Promise.all(runs.map((run) => wallRun(run, viewer)));
}

/** One new or changed run (started, ended), if the caller may see it. */
export async function wallClientRunFor(id: number, credentials: Credentials): Promise<WallClientRun | undefined> {
  const viewer = viewerOf(credentials);
  if (!viewer) return undefined;
  const run = await visibleRun(id, viewer);
  return run && wallRun(run, viewer);
}

const clientRunId = (raw: unknown): number | undefined => {
  const id = typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : undefined;
  return id !== undefined && Number.isSafeInteger(id) ? id : undefined;
};

/**
 * A client run's history, for /replay?client=…: to the trainer (the wall's link), and to the person
 * who ran it in a lab they may see. Anyone else, a bad id, a run still going or one whose events a
 * reset cleared gets nothing.
 */
export async function clientRunFileFor(
  raw: unknown,
  credentials: Credentials,
): Promise<{ file: HistoryFile; fileName: string; run: WallClientRun } | undefined> {
  const id = clientRunId(raw);
  const viewer = viewerOf(credentials);
  if (id === undefined || !viewer) return undefined;
  const found = await visibleRun(id, viewer);
  if (!found) return undefined;
  const run = await wallRun(found, viewer);
  if (!run.hasHistory) return undefined;
  const file = toHistoryFile({
    lab: {
      id: run.lab,
      kind: found.kind,
      title: `${run.labTitle}: ${run.actor} ran ${run.program} (${runnerLabel(run)})`,
    },
    events: (await readClientRunEvents(found)).map(toWire),
    exportedAt: new Date(),
  });
  return { file, fileName: `fencing-lab-client-run-${id}-${run.lab}-${run.actor}.json`, run };
}
