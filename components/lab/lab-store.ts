import { createStore } from 'zustand/vanilla';
import type { LabSnapshot, WireEvent } from '@/lib/model/core/wire';
import { type ReplaySpeed, replayBounds } from '@/lib/model/history/replay';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import type { StepFrame } from '@/lib/model/timeline/timeline-frame';

/*
 * The browser's copy of a lab: the event log as the live feed delivered it (in id order, each id
 * once) and the latest snapshot of the row, the lease and the workers; plus view state. Lanes and
 * tables are derived from these by pure functions, never stored.
 */

export type Connection = 'connecting' | 'live' | 'reconnecting';

export type Notice = { tone: 'ok' | 'error'; message: string; at: number };

export type LabState = {
  /** The lab's id ("fenced", or a private lab's "p-…"). */
  lab: string;
  kind: LabId;
  visibility: LabSummary['visibility'];
  /** Whether this browser may drive the lab (the trainer, or a private lab's owner); else it watches. */
  canDrive: boolean;
  events: WireEvent[];
  snapshot: LabSnapshot | undefined;
  /** Database clock minus this browser's clock, from the latest snapshot. */
  clockOffsetMs: number;
  connection: Connection;
  /** Why the feed is not live, in words (the database is away, too many feeds), while it is not. */
  connectionNote: string | undefined;
  /** Whether the feed was live before and went away: "Live again" once it is back. */
  reconnected: boolean;
  /** The identity of the database the events came from (the feed's `hello`). */
  database: string | undefined;
  /** How much time the timeline shows, and where it ends (undefined: it follows now). */
  windowMs: number;
  viewEnd: number | undefined;
  /**
   * The stretch a walkthrough's shown step talks about (presenter mode): while set, the timeline
   * shows it and now together instead of `windowMs`; a zoom, a pan or "Follow now" lets go of it.
   */
  frame: StepFrame | undefined;
  /**
   * The walkthrough step shown and its moment (the database time its event was recorded), while a
   * story is told step by step: when the lab is past that step (Back, or a step that completed by
   * itself), every panel shows the lab as of that moment (replay/use-replay-view.ts), else it is live
   * and says how long after the step it is.
   */
  stepMoment: StepMoment | undefined;
  selectedMark: string | undefined;
  selectedWorker: string | undefined;
  notice: Notice | undefined;
  /** False for a history opened from a file: no feed, nothing live, always replaying. */
  live: boolean;
  /** The replayed moment (database time); undefined: the lab is shown live. */
  replayAt: number | undefined;
  replaySpeed: ReplaySpeed;
  replayPlaying: boolean;
};

/**
 * A walkthrough step's moment: `step` from 1, `at` in database time, the last event by then (`upToId`: the
 * panels cut by id, as the words do), and `past` when the lab has gone on past the step.
 */
export type StepMoment = { step: number; at: number; upToId: number; past: boolean };

export type LabActions = {
  /** Events in id order from the feed; ones already held are skipped. */
  receiveEvents: (events: WireEvent[]) => void;
  /**
   * A (re)connection's hello: events older than the lab's oldest were deleted by a reset. From
   * another database than before, the history held is not this one's: it is dropped, and the
   * result says so (the caller reads the history again from the start).
   */
  receiveHello: (hello: { firstId: number | null; database: string }) => 'same-database' | 'new-database';
  /** The lab was reset: its events up to `upTo` are gone (all of them, without a boundary). */
  receiveReset: (upTo?: number) => void;
  receiveSnapshot: (snapshot: LabSnapshot) => void;
  setConnection: (connection: Connection, note?: string) => void;
  zoom: (factor: number) => void;
  pan: (deltaMs: number, now: number) => void;
  follow: () => void;
  setFrame: (frame: StepFrame | undefined) => void;
  setStepMoment: (moment: StepMoment | undefined) => void;
  /** Lets go of the frame, keeping the window it showed (`windowMs` ending at `viewEnd`). */
  holdView: (windowMs: number, viewEnd: number) => void;
  selectMark: (key: string | undefined) => void;
  selectWorker: (id: string | undefined) => void;
  notify: (tone: Notice['tone'], message: string) => void;
  /** Replays the lab at `at` (the caller keeps it within the history). */
  replayTo: (at: number) => void;
  setReplaySpeed: (speed: ReplaySpeed) => void;
  setReplayPlaying: (playing: boolean) => void;
  backToLive: () => void;
};

export type LabStore = LabState & LabActions;

function withoutShownStep({ walkthroughStep: _, ...rest }: LabSnapshot): LabSnapshot {
  return rest;
}

const WINDOW_BOUNDS_MS = { min: 2_000, max: 10 * 60_000, initial: 14_000 } as const;
/**
 * The air around a fitted history, as shares of the window: more on the right, where the last write
 * (a counterexample's deciding one) has its label.
 */
const FIT_AIR = { left: 0.05, right: 0.2 } as const;
const clampWindow = (ms: number) => Math.min(WINDOW_BOUNDS_MS.max, Math.max(WINDOW_BOUNDS_MS.min, Math.round(ms)));

/** A recorded history's window: all of it, a little air each side, within the zoom bounds. */
function fittedTo(history: readonly WireEvent[] | undefined): { windowMs: number; viewEnd: number } | undefined {
  const bounds = history ? replayBounds(history) : undefined;
  if (!bounds) return undefined;
  const windowMs = clampWindow((bounds.to - bounds.from) / (1 - FIT_AIR.left - FIT_AIR.right));
  return { windowMs, viewEnd: bounds.to + FIT_AIR.right * windowMs };
}

/**
 * With `history`, the store holds that history (from a file, or a guard's counterexample) and
 * replays it at its last moment, fitted to its span: a 1.6 s counterexample is not drawn crammed at
 * the right edge of a 14 s window.
 */
export function createLabStore(summary: LabSummary, canDrive: boolean, history?: readonly WireEvent[]) {
  const last = history?.reduce((latest, event) => Math.max(latest, event.at), Number.NEGATIVE_INFINITY);
  const fitted = fittedTo(history);
  return createStore<LabStore>()((set, get) => ({
    lab: summary.id,
    kind: summary.kind,
    visibility: summary.visibility,
    canDrive,
    events: history ? [...history] : [],
    snapshot: undefined,
    clockOffsetMs: 0,
    connection: history ? 'live' : 'connecting',
    connectionNote: undefined,
    reconnected: false,
    database: undefined,
    windowMs: fitted?.windowMs ?? WINDOW_BOUNDS_MS.initial,
    viewEnd: fitted?.viewEnd,
    frame: undefined,
    stepMoment: undefined,
    selectedMark: undefined,
    selectedWorker: undefined,
    notice: undefined,
    live: !history,
    replayAt: last !== undefined && Number.isFinite(last) ? last : undefined,
    replaySpeed: 1,
    replayPlaying: false,

    receiveEvents: (batch) => {
      const lastId = get().events.at(-1)?.id ?? 0;
      const fresh = batch.filter((event) => event.id > lastId);
      if (fresh.length) set({ events: get().events.concat(fresh) });
    },
    receiveHello: ({ firstId, database }) => {
      const known = get().database;
      if (known !== undefined && known !== database) {
        set({
          database,
          events: [],
          selectedMark: undefined,
          viewEnd: undefined,
          frame: undefined,
          stepMoment: undefined,
          replayAt: undefined,
          replayPlaying: false,
        });
        return 'new-database';
      }
      set({ database, events: firstId === null ? [] : get().events.filter((e) => e.id >= firstId) });
      return 'same-database';
    },
    receiveReset: (upTo) => {
      const held = get().snapshot;
      set({
        events: upTo === undefined ? [] : get().events.filter((e) => e.id > upTo),
        // The step the trainer showed belongs to the run the reset ended (the next snapshot says so too).
        snapshot: held && withoutShownStep(held),
        selectedMark: undefined,
        viewEnd: undefined,
        frame: undefined,
        stepMoment: undefined,
        replayAt: undefined,
        replayPlaying: false,
      });
    },
    receiveSnapshot: (snapshot) => {
      const { selectedWorker } = get();
      const stillThere = snapshot.workers.some((w) => w.id === selectedWorker);
      set({
        snapshot,
        clockOffsetMs: snapshot.dbNow - Date.now(),
        selectedWorker: stillThere ? selectedWorker : snapshot.workers[0]?.id,
      });
    },
    setConnection: (connection, note) => {
      const was = get().connection;
      set({
        connection,
        connectionNote: connection === 'live' ? undefined : note,
        reconnected: connection === 'live' ? was === 'reconnecting' || get().reconnected : get().reconnected,
      });
    },
    zoom: (factor) => {
      const next = Math.round(get().windowMs * factor);
      set({ windowMs: clampWindow(next), frame: undefined });
    },
    pan: (deltaMs, now) => {
      const end = (get().viewEnd ?? now) + deltaMs;
      set({ viewEnd: end >= now ? undefined : end, frame: undefined });
    },
    follow: () => set({ viewEnd: undefined, frame: undefined }),
    setFrame: (frame) => {
      const held = get().frame;
      if (held?.from !== frame?.from || held?.to !== frame?.to || held?.untilNow !== frame?.untilNow) set({ frame });
    },
    setStepMoment: (moment) => {
      const held = get().stepMoment;
      if (held?.step !== moment?.step || held?.at !== moment?.at || held?.past !== moment?.past)
        set({ stepMoment: moment });
    },
    holdView: (windowMs, viewEnd) => set({ windowMs: clampWindow(windowMs), viewEnd, frame: undefined }),
    selectMark: (key) => set({ selectedMark: key }),
    selectWorker: (id) => set({ selectedWorker: id }),
    notify: (tone, message) => set({ notice: { tone, message, at: Date.now() } }),
    replayTo: (at) => set({ replayAt: at }),
    setReplaySpeed: (speed) => set({ replaySpeed: speed }),
    setReplayPlaying: (playing) => set({ replayPlaying: playing }),
    // A history from a file has no live end to go back to.
    backToLive: () => (get().live ? set({ replayAt: undefined, replayPlaying: false }) : undefined),
  }));
}

export type LabStoreApi = ReturnType<typeof createLabStore>;
