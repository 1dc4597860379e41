import 'server-only';
import { appendEvent } from '../../db/events';
import {
  checkPrivateLabLimits,
  claimIdleLabs,
  closeLab,
  createPrivateLab,
  finishIdleClose,
  type LabRecord,
  recordLabUse,
} from '../../db/labs';
import { getPool } from '../../db/pool';
import { dropGuard } from '../../db/your-guard';
import { roomSettings } from '../config/room-settings';
import { takesTraineeGuard } from '../labs/traits';
import { OutageLog } from '../log/outage-log';
import type { ForkRecord } from '../model/history/what-if';
import type { LabId } from '../model/lab/lab-kinds';
import { OPENS_WINDOW_MS } from '../model/lab/lab-limits';
import { singleton } from '../os/process-singletons';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { getSupervisor } from '../supervisor/supervisor';

const IDLE_CHECK_MS = 15_000;
/** How long a private lab may sit with nobody watching and nothing done before it is closed: FENCING_LAB_IDLE_MINUTES. */
function idleLimitMs(): number {
  return roomSettings().idleMinutes * 60_000;
}

/** Private labs one client address may open per hour: FENCING_LAB_OPENS_PER_ADDRESS. */
export function opensPerAddress(): number {
  return roomSettings().opensPerAddress;
}

/** How often one server records a lab's use in the database at most: a busy lab does not write on every click. */
const USE_RECORD_MS = 30_000;

/**
 * The private labs' idle close. When each lab was last used is kept in the database (labs.last_used_at,
 * written by every app server on it), so a lab in use through another server behind the same load
 * balancer is never closed as idle here. This server remembers only how many of its feeds watch each
 * lab, and when it last recorded each lab's use (to write at most once per USE_RECORD_MS). A lab not
 * used through any server for idleLimitMs() is closed: its workers stopped, its history kept for
 * replay. One instance per process (lib/os/process-singletons.ts).
 */
export class PrivateLabs {
  /** When this server last recorded each lab's use in the database (its own clock, for the throttle only). */
  private readonly recordedAt = new Map<string, number>();
  private readonly viewers = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private readonly idleCheckOutage = new OutageLog('labs', 'idle check');
  private readonly useOutage = new OutageLog('labs', "recording a lab's use");

  /**
   * Opens a private lab for an owner (the hash of its browser's secret) asking from a client
   * address. The limits (the room's, the owner's, the address's) are counted and the lab inserted
   * in one locked transaction (db/labs.ts), so a burst of requests cannot pass them together.
   */
  async open(
    kind: LabId,
    owner: { ownerHash: string; address: string },
    fork?: { record: ForkRecord; rowValue: string; rowToken: number },
  ): Promise<LabRecord> {
    const lab = await createPrivateLab({
      kind,
      ownerHash: owner.ownerHash,
      openedFrom: owner.address,
      initialValue: fork?.rowValue ?? INITIAL_ROW_VALUE,
      opensPerAddress: opensPerAddress(),
      opensWindowMs: OPENS_WINDOW_MS,
      ...(fork ? { fork: { record: fork.record, rowToken: fork.rowToken } } : {}),
    });
    // Inserted as used just now (db/labs.ts).
    this.recordedAt.set(lab.id, Date.now());
    this.ensureIdleChecks();
    return lab;
  }

  /**
   * Throws the refusal open() would give (for a fork too, when `fork`), counted now without the lock:
   * for a caller with costly work to do before it opens a lab. open() counts again under the lock.
   */
  async checkLimits(owner: { ownerHash: string; address: string }, options: { fork: boolean }): Promise<void> {
    await checkPrivateLabLimits({
      ownerHash: owner.ownerHash,
      openedFrom: owner.address,
      opensPerAddress: opensPerAddress(),
      opensWindowMs: OPENS_WINDOW_MS,
      fork: options.fork,
    });
  }

  /** The lab was used just now (an open lab only: a closed one is history, and costs nothing). */
  touch(labId: string): void {
    this.ensureIdleChecks();
    void this.recordUse([labId]).then(
      () => this.useOutage.succeeded(),
      (error: unknown) => this.useOutage.failed(error),
    );
  }

  /**
   * Records the labs' use in the database, except (when throttled) those this server recorded in the
   * last USE_RECORD_MS. A write that fails is tried again at the next use or idle check.
   */
  private async recordUse(labIds: readonly string[], throttled = true): Promise<void> {
    const now = Date.now();
    const due = throttled
      ? labIds.filter((id) => now - (this.recordedAt.get(id) ?? Number.NEGATIVE_INFINITY) >= USE_RECORD_MS)
      : labIds;
    if (due.length === 0) return;
    for (const id of due) this.recordedAt.set(id, now);
    try {
      await recordLabUse(due);
    } catch (error) {
      for (const id of due) if (this.recordedAt.get(id) === now) this.recordedAt.delete(id);
      throw error;
    }
  }

  /**
   * A live feed opened on the lab; call the returned function (once or more) when it closes. A
   * closed lab is only history: watching it (a replay) keeps nothing open and counts for nothing.
   */
  watch(lab: Pick<LabRecord, 'id' | 'closedAt'>): () => void {
    if (lab.closedAt) return () => undefined;
    const labId = lab.id;
    this.viewers.set(labId, (this.viewers.get(labId) ?? 0) + 1);
    this.touch(labId);
    let watching = true;
    return () => {
      if (!watching) return;
      watching = false;
      const left = (this.viewers.get(labId) ?? 1) - 1;
      if (left > 0) this.viewers.set(labId, left);
      else this.viewers.delete(labId);
      this.touch(labId);
    };
  }

  /** The labs this server has live viewers on now. */
  watchedLabIds(): string[] {
    return [...this.viewers.keys()];
  }

  /**
   * One idle check: records the use of the labs this server has live viewers on (a lab watched through
   * any server stays open), then closes every private lab nobody used through any server for the
   * idle limit, judged on the database's clock. A lab is chosen and marked closed in one statement,
   * so when two servers check at once only one closes it, stops its workers and records it.
   * Returns the ids this check closed.
   */
  async closeIdle(): Promise<string[]> {
    const watched = [...this.viewers.keys()];
    // The throttle needs only the last USE_RECORD_MS: older entries (labs closed elsewhere) go.
    const now = Date.now();
    for (const [id, at] of this.recordedAt) if (now - at >= USE_RECORD_MS) this.recordedAt.delete(id);
    // Every check, unthrottled: a lab watched here must look used to every other server's check.
    await this.recordUse(watched, false);
    const limit = idleLimitMs();
    const claimed = await claimIdleLabs({ idleMs: limit, keepOpen: watched });
    for (const lab of claimed) {
      // Already closed in the database: its end must follow even if stopping a worker here fails.
      await getSupervisor()
        .closeLab(lab)
        .catch((error: unknown) => console.error(`[labs] stopping ${lab.id}'s workers:`, (error as Error).message));
      await finishIdleClose(lab.id);
      await dropGuardOf(lab);
      await this.recordClosed(lab.id, `idle for ${Math.round(limit / 60_000)} minutes`);
    }
    return claimed.map((lab) => lab.id);
  }

  /** Stops the lab's workers for good (remote ones see it in their heartbeat), keeping its history. */
  async close(lab: LabRecord, reason: string): Promise<void> {
    await getSupervisor().closeLab(lab);
    await closeLab(lab.id);
    await dropGuardOf(lab);
    await this.recordClosed(lab.id, reason);
  }

  private async recordClosed(labId: string, reason: string): Promise<void> {
    await appendEvent(getPool(), { lab: labId, actor: 'server', kind: 'lab_closed', detail: { reason } });
    this.recordedAt.delete(labId);
    this.viewers.delete(labId);
  }

  /** Once this server has handled a private lab, it checks them all, every IDLE_CHECK_MS (one query when none is idle). */
  private ensureIdleChecks(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.checking) return;
      this.checking = true;
      this.closeIdle()
        .then(
          () => this.idleCheckOutage.succeeded(),
          (error: unknown) => this.idleCheckOutage.failed(error),
        )
        .finally(() => {
          this.checking = false;
        });
    }, IDLE_CHECK_MS);
    this.timer.unref();
  }
}

/** A closed your-guard lab keeps its history, not its guard: its schema and role go (0033_your_guard_lab.sql). */
async function dropGuardOf(lab: LabRecord): Promise<void> {
  if (takesTraineeGuard(lab.kind)) await dropGuard(lab.id);
}

export const getPrivateLabs = (): PrivateLabs => singleton('server.private-labs', () => new PrivateLabs());
