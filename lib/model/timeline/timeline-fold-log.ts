import type {
  BeliefBand,
  LabMark,
  Lane,
  LeaseBar,
  LifeMark,
  LossMark,
  PauseBlock,
  RowChange,
  WriteMark,
} from './timeline-types';

/*
 * The state the timeline's fold keeps between events (timeline-fold.ts folds a holder's events,
 * timeline-fold-lab.ts the row and the lab's own steps, timeline-builder.ts hands the lanes out).
 */

export type ListName = 'leases' | 'beliefs' | 'pauses' | 'writes' | 'losses' | 'life';
export type Lists = {
  leases: LeaseBar[];
  beliefs: BeliefBand[];
  pauses: PauseBlock[];
  writes: WriteMark[];
  losses: LossMark[];
  life: LifeMark[];
};

export type HolderState = {
  holder: string;
  lists: Lists;
  /** Lists a handed-out timeline holds: copied before the next write. */
  shared: Set<ListName>;
  /** Something changed since the last `at`. */
  changed: boolean;
  /** The lane last handed out, and whether it held marks closed at that moment (then it is redone). */
  handedOut?: Lane;
  closedAtNow: boolean;
  /** Index of the lane's lease bar with this token, so that long histories stay linear. */
  leaseByToken: Map<number, number>;
  openLease?: number;
  believed?: { token: number };
  openPause?: number;
  /** Freezes that started again before they ended: they stay open, to `now`. */
  orphanPauses: number[];
  lastSentAt?: number;
};

/** The holders' states and the row, as folded so far. */
export type FoldedLog = {
  holders: Map<string, HolderState>;
  row: RowChange[];
  /** The row list is held by a handed-out timeline: copied before the next change. */
  rowShared: boolean;
  labMarks: LabMark[];
  labMarksShared: boolean;
};

export const emptyLog = (): FoldedLog => ({
  holders: new Map(),
  row: [],
  rowShared: false,
  labMarks: [],
  labMarksShared: false,
});
