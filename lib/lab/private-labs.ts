import 'server-only';
import { appendEvent } from '../../db/events';
import { closeLab, createPrivateLab, findLab, type LabRecord } from '../../db/labs';
import { getPool } from '../../db/pool';
import { FencingError } from '../model/errors';
import { MAX_PRIVATE_LABS } from '../model/lab-inputs';
import type { LabId } from '../model/labs';
import { INITIAL_ROW_VALUE } from './lab-reset';
import { getSupervisor } from './supervisor';

const IDLE_CHECK_MS = 15_000;
const DEFAULT_IDLE_MINUTES = 15;

/** How long a private lab may sit with nobody watching and nothing done before it is closed. */
export function idleLimitMs(): number {
  const minutes = Number(process.env.FENCING_LAB_IDLE_MINUTES);
  return (Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_IDLE_MINUTES) * 60_000;
}

/**
 * The private labs this server keeps an eye on: when each was last used, and how many feeds watch
 * it. A lab nobody watches or drives for idleLimitMs() is closed: its workers stopped, its history
 * kept for replay. One instance per process, on globalThis.
 */
export class PrivateLabs {
  private readonly lastUsed = new Map<string, number>();
  private readonly viewers = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  async open(kind: LabId, ownerHash: string): Promise<LabRecord> {
    // Counted here, not in the database: labs a previous run of the server left open have no
    // workers, and close on their own once used and left idle again.
    if (this.lastUsed.size >= MAX_PRIVATE_LABS) {
      throw new FencingError(
        'limit_reached',
        `this server already has ${MAX_PRIVATE_LABS} private labs open, its limit: try again when idle labs have closed, or ask the trainer`,
      );
    }
    const lab = await createPrivateLab({ kind, ownerHash, initialValue: INITIAL_ROW_VALUE });
    this.touch(lab.id);
    return lab;
  }

  touch(labId: string): void {
    this.lastUsed.set(labId, Date.now());
    this.ensureSweeping();
  }

  /** A live feed opened on the lab; call the returned function when it closes. */
  watch(labId: string): () => void {
    this.viewers.set(labId, (this.viewers.get(labId) ?? 0) + 1);
    this.touch(labId);
    return () => {
      const left = (this.viewers.get(labId) ?? 1) - 1;
      if (left > 0) this.viewers.set(labId, left);
      else this.viewers.delete(labId);
      this.touch(labId);
    };
  }

  /** Closes every private lab idle longer than the limit; returns the ids it closed. */
  async closeIdle(now = Date.now()): Promise<string[]> {
    const closed: string[] = [];
    for (const [labId, at] of [...this.lastUsed]) {
      if ((this.viewers.get(labId) ?? 0) > 0 || now - at < idleLimitMs()) continue;
      this.lastUsed.delete(labId);
      const lab = await findLab(labId);
      if (!lab || lab.closedAt) continue;
      await this.close(lab, `idle for ${Math.round(idleLimitMs() / 60_000)} minutes`);
      closed.push(labId);
    }
    return closed;
  }

  async close(lab: LabRecord, reason: string): Promise<void> {
    await getSupervisor().stopLab(lab);
    await closeLab(lab.id);
    await appendEvent(getPool(), { lab: lab.id, actor: 'server', kind: 'lab_closed', detail: { reason } });
  }

  private ensureSweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = true;
      this.closeIdle()
        .catch((error: unknown) => console.error('[labs] idle sweep failed:', (error as Error).message))
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
