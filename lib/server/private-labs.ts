import 'server-only';
import { appendEvent } from '../../db/events';
import { closeLab, createPrivateLab, findLab, type LabRecord, listOpenPrivateLabIds } from '../../db/labs';
import { getPool } from '../../db/pool';
import { OutageLog } from '../log/outage-log';
import type { LabId } from '../model/lab-kinds';
import { DEFAULT_OPENS_PER_ADDRESS, OPENS_WINDOW_MS, positiveWholeNumber } from '../model/lab-limits';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { getSupervisor } from '../supervisor/supervisor';

const IDLE_CHECK_MS = 15_000;
const DEFAULT_IDLE_MINUTES = 15;

/** How long a private lab may sit with nobody watching and nothing done before it is closed. */
function idleLimitMs(): number {
  const minutes = Number(process.env.FENCING_LAB_IDLE_MINUTES);
  return (Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_IDLE_MINUTES) * 60_000;
}

/** Private labs one client address may open per hour: FENCING_LAB_OPENS_PER_ADDRESS, or 12. */
export function opensPerAddress(): number {
  return positiveWholeNumber(process.env.FENCING_LAB_OPENS_PER_ADDRESS, DEFAULT_OPENS_PER_ADDRESS);
}

/**
 * The private labs this server keeps an eye on: when each was last used, and how many feeds watch
 * it. A lab nobody watches or drives for idleLimitMs() is closed: its workers stopped, its history
 * kept for replay. One instance per process, on globalThis.
 */
export class PrivateLabs {
  /** The open private labs, by when they were last used. Closed labs are not in it. */
  private readonly lastUsed = new Map<string, number>();
  private readonly viewers = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private readonly sweepOutage = new OutageLog('labs', 'idle sweep');
  private adopted: Promise<void> | undefined;

  /**
   * Labs a previous run of the server left open are adopted once, as if used just now: their
   * remote workers may still run, and they close when left idle like any other.
   */
  private adoptOpenLabs(): Promise<void> {
    this.adopted ??= listOpenPrivateLabIds()
      .then((ids) => {
        for (const id of ids) if (!this.lastUsed.has(id)) this.touch(id);
      })
      .catch((error: unknown) => {
        this.adopted = undefined;
        console.error('[labs] could not list open private labs:', (error as Error).message);
      });
    return this.adopted;
  }

  /**
   * Opens a private lab for an owner (the hash of its browser's secret) asking from a client
   * address. The limits (the server's, the owner's, the address's) are counted and the lab inserted
   * in one locked transaction (db/labs.ts), so a burst of requests cannot pass them together.
   */
  async open(kind: LabId, owner: { ownerHash: string; address: string }): Promise<LabRecord> {
    await this.adoptOpenLabs();
    const lab = await createPrivateLab({
      kind,
      ownerHash: owner.ownerHash,
      openedFrom: owner.address,
      initialValue: INITIAL_ROW_VALUE,
      opensPerAddress: opensPerAddress(),
      opensWindowMs: OPENS_WINDOW_MS,
    });
    this.touch(lab.id);
    return lab;
  }

  /** The lab was used just now (an open lab only: a closed one is history, and costs nothing). */
  touch(labId: string): void {
    this.lastUsed.set(labId, Date.now());
    this.ensureSweeping();
    void this.adoptOpenLabs();
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
      if (this.lastUsed.has(labId)) this.touch(labId);
    };
  }

  /** Closes every private lab idle longer than the limit; returns the ids it closed. */
  async closeIdle(now = Date.now()): Promise<string[]> {
    const closed: string[] = [];
    for (const [labId, at] of [...this.lastUsed]) {
      if ((this.viewers.get(labId) ?? 0) > 0 || now - at < idleLimitMs()) continue;
      const lab = await findLab(labId);
      if (!lab || lab.closedAt) {
        this.lastUsed.delete(labId);
        continue;
      }
      // Forgotten only once closed: a close that fails (the database away) is tried again later.
      await this.close(lab, `idle for ${Math.round(idleLimitMs() / 60_000)} minutes`);
      closed.push(labId);
    }
    return closed;
  }

  /** Stops the lab's workers for good (remote ones see it in their heartbeat), keeping its history. */
  async close(lab: LabRecord, reason: string): Promise<void> {
    await getSupervisor().closeLab(lab);
    await closeLab(lab.id);
    await appendEvent(getPool(), { lab: lab.id, actor: 'server', kind: 'lab_closed', detail: { reason } });
    this.lastUsed.delete(lab.id);
    this.viewers.delete(lab.id);
  }

  private ensureSweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = true;
      this.closeIdle()
        .then(
          () => this.sweepOutage.succeeded(),
          (error: unknown) => this.sweepOutage.failed(error),
        )
        .finally(() => {
          this.sweeping = false;
          if (this.lastUsed.size === 0 && this.timer) {
            clearInterval(this.timer);
            this.timer = undefined;
          }
        });
    }, IDLE_CHECK_MS);
    this.timer.unref();
  }
}

type GlobalWithPrivateLabs = typeof globalThis & { __fencingLabPrivateLabs?: PrivateLabs };

export function getPrivateLabs(): PrivateLabs {
  const holder = globalThis as GlobalWithPrivateLabs;
  holder.__fencingLabPrivateLabs ??= new PrivateLabs();
  return holder.__fencingLabPrivateLabs;
}
