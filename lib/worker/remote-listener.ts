import 'server-only';
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type pg from 'pg';
import { appendEvent } from '../../db/events';
import { newClient } from '../../db/pool';
import {
  beatRemoteWorker,
  markRemoteWorkerStopped,
  type RemoteStatus,
  takeWorkerCommands,
} from '../../db/remote-workers';
import type { PauseTrigger } from './protocol';
import { wake, wakeToStop } from './remote-freeze';
import type { ListenerData, ToListener, ToMain } from './remote-protocol';

/*
 * The remote worker's command listener, a thread of its own (started by remote-main.ts). It must
 * run while the main thread is frozen: it keeps the heartbeat going (so the UI shows a paused
 * worker, not a dead one), takes the trainer's commands (LISTEN, and a poll every second in case a
 * notification was missed), and wakes the main thread when a pause ends.
 */

const HEARTBEAT_EVERY_MS = 1_000;
const COMMANDS_CHANNEL = 'fencing_worker_commands';

type PauseLength = number | 'until-resumed';

const data = workerData as ListenerData;
const port = parentPort;
if (!port) throw new Error('remote-listener runs as a worker thread of remote-main.ts');
const me = { lab: data.lab.id, name: data.name, instance: data.instance };

let status: RemoteStatus = { phase: 'starting', armed: false };
let stopping = false;
let client: pg.Client | undefined;
let connecting: Promise<pg.Client> | undefined;
const pending: { now?: PauseLength; criticalWindow?: PauseLength } = {};
let resumeTimer: NodeJS.Timeout | undefined;

/** Straight to the terminal: console output of a thread goes through the main thread, frozen or not. */
const say = (line: string) => writeSync(1, `[${data.name}] ${line}\n`);
const tell = (message: ToMain) => port.postMessage(message);

port.on('message', (message: ToListener) => {
  if (message.type === 'stopping') stopping = true;
  if (message.type === 'status') {
    const { type: _, ...rest } = message;
    status = rest;
    void beat();
  }
  if (message.type === 'paused') onPaused(message.trigger);
});

/** The main thread is about to block: a timed pause gets its timer, a called-off one ends at once. */
function onPaused(trigger: PauseTrigger): void {
  const slot = trigger === 'critical-window' ? 'criticalWindow' : 'now';
  const lasts = pending[slot];
  pending[slot] = undefined;
  if (lasts === undefined) wake(data.freezeState);
  if (typeof lasts === 'number') {
    resumeTimer = setTimeout(() => {
      resumeTimer = undefined;
      if (wake(data.freezeState)) say('resumed (the pause ran its length)');
    }, lasts);
  }
}

function clearPauses(): void {
  if (resumeTimer) clearTimeout(resumeTimer);
  resumeTimer = undefined;
  pending.now = undefined;
  pending.criticalWindow = undefined;
}

const lengthOf = (seconds: number | undefined): PauseLength =>
  seconds === undefined ? 'until-resumed' : Math.round(seconds * 1000);
const howLong = (lasts: PauseLength) => (lasts === 'until-resumed' ? 'until resumed' : `for ${lasts / 1000} s`);

async function obey(command: { command: string; seconds?: number }, db: pg.Client): Promise<void> {
  switch (command.command) {
    case 'pause-now':
      pending.now = lengthOf(command.seconds);
      say(`paused by the trainer ${howLong(pending.now)}`);
      return tell({ type: 'pause-now' });
    case 'arm-critical-pause':
      pending.criticalWindow = lengthOf(command.seconds);
      say(`will freeze before its next write, ${howLong(pending.criticalWindow)}`);
      return tell({ type: 'arm-critical-pause' });
    case 'cancel-pauses':
      clearPauses();
      return tell({ type: 'cancel-pauses' });
    case 'resume':
      clearPauses();
      tell({ type: 'cancel-pauses' });
      if (wake(data.freezeState)) say('resumed by the trainer');
      return;
    case 'crash':
      stopping = true;
      await appendEvent(
        db,
        {
          lab: data.lab.id,
          actor: data.name,
          kind: 'worker_crashed',
          resource: data.lab.resource,
          detail: { workerId: data.name, ...data.settings, signal: 'SIGKILL', remote: true },
        },
        { as: me },
      );
      await markRemoteWorkerStopped(me, db);
      say('crashed by the trainer (SIGKILL)');
      process.kill(process.pid, 'SIGKILL');
      return;
    case 'stop':
      return stop('stopped: the lab was reset', db);
  }
}

async function stop(reason: string, db: pg.Client): Promise<void> {
  stopping = true;
  await markRemoteWorkerStopped(me, db).catch(() => undefined);
  say(reason);
  // A frozen main thread wakes to exit; a running one gets the message.
  wakeToStop(data.freezeState);
  tell({ type: 'stop', reason });
}

/** One connection for the heartbeat, LISTEN and the commands; a new one when it breaks. */
function connection(): Promise<pg.Client> {
  if (client) return Promise.resolve(client);
  connecting ??= (async () => {
    const fresh = newClient(data.databaseUrl);
    try {
      await fresh.connect();
      fresh.on('notification', (note) => {
        const target = JSON.parse(note.payload ?? '{}') as { lab?: string; worker?: string };
        if (target.lab === data.lab.id && target.worker === data.name) void takeCommands();
      });
      const drop = () => {
        if (client === fresh) client = undefined;
      };
      fresh.on('error', drop);
      fresh.on('end', drop);
      await fresh.query(`LISTEN ${COMMANDS_CHANNEL}`);
      client = fresh;
      return fresh;
    } catch (error) {
      await fresh.end().catch(() => undefined);
      throw error;
    } finally {
      connecting = undefined;
    }
  })();
  return connecting;
}

let taking: Promise<void> | undefined;
let takeAgain = false;
/** Coalesced: one take at a time, again if a notification came meanwhile. */
function takeCommands(): Promise<void> {
  if (taking) {
    takeAgain = true;
    return taking;
  }
  taking = (async () => {
    do {
      takeAgain = false;
      if (stopping) return;
      const db = await connection();
      for (const command of await takeWorkerCommands(
        { lab: data.lab.id, worker: data.name, instance: data.instance },
        db,
      )) {
        await obey(command, db);
      }
    } while (takeAgain);
  })()
    .catch(() => undefined) // the database is away: the next tick tries again
    .finally(() => {
      taking = undefined;
    });
  return taking;
}

let beating: Promise<void> | undefined;
let beatAgain = false;
/** Coalesced like takeCommands: the row always ends up with the latest status. */
function beat(): Promise<void> {
  if (beating) {
    beatAgain = true;
    return beating;
  }
  beating = (async () => {
    do {
      beatAgain = false;
      if (stopping) return;
      const db = await connection();
      const { stop: reason } = await beatRemoteWorker({ ...me, status }, db);
      if (reason && !stopping) await stop(`stopped: ${reason}`, db);
    } while (beatAgain);
  })()
    .catch(() => undefined)
    .finally(() => {
      beating = undefined;
    });
  return beating;
}

setInterval(() => {
  void beat();
  void takeCommands();
}, HEARTBEAT_EVERY_MS);
void takeCommands();
