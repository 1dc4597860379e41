import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { readLease, revokeLease } from '../../db/leases';
import { type ChaosAction, LEASE_HOLDER } from '../model/chaos/chaos-plan';
import type { NemesisCounts } from '../model/chaos/chaos-tally';
import type { LabInstance } from '../model/lab/lab-instance';
import { getSupervisor } from '../supervisor/supervisor';

/** How long after a struck holder wakes its stale write is left to land before the worker is fair game again. */
const STRIKE_SETTLE_MS = 1_000;
const HOLDER_POLL_MS = 25;

/**
 * Applies a chaos plan's actions to one lab's real workers. A holder struck (frozen or held) is
 * spared by the other actions until it has woken and sent its stale write: that write is the point.
 */
export class ChaosActions {
  readonly counts: NemesisCounts = { heldConnections: 0, databaseCrashes: 0 };
  private readonly struck = new Map<string, number>();
  private readonly releases = new Set<Promise<void>>();
  private lastEventId = 0;
  /** Workers the plan crashed and has not restarted yet. */
  private readonly crashed = new Set<string>();
  /** Each worker's latest lease token, and the lease token under which it last had a write accepted. */
  private readonly grantedTo = new Map<string, number | undefined>();
  private readonly wroteUnder = new Map<string, number | undefined>();

  constructor(
    private readonly lab: LabInstance,
    private readonly leaseTtlMs: number,
    private readonly crashDatabase?: () => Promise<void>,
  ) {}

  async apply(action: ChaosAction): Promise<string> {
    const supervisor = getSupervisor();
    const lab = this.lab;
    switch (action.kind) {
      case 'pause': {
        // A strike at the holder takes whoever runs and holds the lease now; the rest spare it.
        const holder = action.worker === LEASE_HOLDER;
        const worker = holder ? await this.currentHolder() : action.worker;
        if (!holder) this.spare(worker);
        await supervisor.pause(lab, worker, {
          mode: action.criticalWindow ? 'critical-window' : 'for',
          seconds: action.ms / 1000,
        });
        if (holder) this.struck.set(worker, Date.now() + action.ms + STRIKE_SETTLE_MS);
        return `${worker}${holder ? ' (the holder)' : ''} frozen for ${action.ms} ms${action.criticalWindow ? ' in its critical window' : ''}`;
      }
      case 'takeover': {
        // Only a holder that has written: its write is what the old holder's next one must not undo.
        await this.currentHolder({ running: false });
        const revoked = await revokeLease(lab.resource);
        if (!revoked) throw new Error('no lease was running to end');
        return `forced takeover: ${revoked.holder}'s lease (token ${revoked.token}) ended early, not told`;
      }
      case 'hold': {
        const worker = await this.currentHolder();
        await supervisor.holdConnection(lab, worker);
        this.counts.heldConnections += 1;
        this.struck.set(worker, Date.now() + action.ms + STRIKE_SETTLE_MS);
        const release: Promise<void> = sleep(action.ms)
          .then(() => supervisor.releaseConnection(lab, worker))
          .then(
            () => undefined,
            () => undefined, // crashed or stopped meanwhile: its packet relay went with it
          )
          .finally(() => this.releases.delete(release));
        this.releases.add(release);
        return `${worker}'s connection (the holder's) held at its next write for ${action.ms} ms`;
      }
      case 'crash':
        this.spare(action.worker);
        await supervisor.crash(lab, action.worker);
        this.crashed.add(action.worker);
        return `${action.worker} crashed (SIGKILL)`;
      case 'restart':
        this.spare(action.worker);
        this.crashed.delete(action.worker);
        await supervisor.restart(lab, action.worker);
        return `${action.worker} restarted`;
      case 'db-crash': {
        if (!this.crashDatabase) throw new Error('this process does not own the database');
        await this.crashDatabase();
        this.counts.databaseCrashes += 1;
        // Workers reconnect by themselves; any that died meanwhile is brought back, but not one the
        // plan crashed: its own restart is coming, and two at once would race for its name.
        const dead = (await supervisor.listWorkers(lab)).filter((w) => !w.alive && !this.crashed.has(w.name));
        for (const worker of dead) await supervisor.restart(lab, worker.id);
        return `the database was crashed (kill -9) and started again; the workers reconnect${dead.length ? ` (${dead.length} restarted)` : ''}`;
      }
    }
  }

  /**
   * Brings back every worker the plan crashed whose restart it dropped (the run fell behind and its
   * time was up): before a round more, so that the round has all its workers.
   */
  async restartCrashed(): Promise<string[]> {
    const back = [...this.crashed];
    for (const worker of back) {
      this.crashed.delete(worker);
      await getSupervisor().restart(this.lab, worker);
    }
    return back;
  }

  /** Lets every held connection go (their writes arrive now), before the run stops its workers. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.releases]);
  }

  private spare(worker: string): void {
    if ((this.struck.get(worker) ?? 0) > Date.now()) {
      throw new Error(`${worker} was struck as the lease holder and has not written since`);
    }
  }

  /**
   * The worker that holds the lease and has written under it (a strike before its first write would
   * leave nothing on the row for the stalled one's write to be stale against). `running`: and runs,
   * not struck already: the lease row may still name a holder that crashed, froze or is held (its
   * lease not yet run out), and striking that one would stall nobody in the window. A crashed
   * holder's lease must run out first: this waits up to two leases.
   */
  private async currentHolder({ running = true } = {}): Promise<string> {
    const deadline = Date.now() + 2 * this.leaseTtlMs;
    for (;;) {
      await this.followEvents();
      const lease = await readLease(this.lab.resource);
      const wrote = lease !== undefined && this.wroteUnder.get(lease.holder) === lease.token;
      if (lease && wrote && !running) return lease.holder;
      const workers = wrote ? await getSupervisor().listWorkers(this.lab) : [];
      const holder =
        lease &&
        workers.find(
          (w) =>
            w.name === lease.holder &&
            w.alive &&
            w.phase === 'holding' &&
            !w.armed &&
            (this.struck.get(w.name) ?? 0) <= Date.now(),
        );
      if (holder) return holder.name;
      if (Date.now() >= deadline) throw new Error('no running worker holds the lease and has written under it');
      await sleep(HOLDER_POLL_MS);
    }
  }

  /** Reads the lab's new events: which lease each worker holds and whether it has written under it. */
  private async followEvents(): Promise<void> {
    for (const event of await listEvents({ lab: this.lab.id, afterId: this.lastEventId })) {
      this.lastEventId = event.id;
      if (event.kind === 'lease_acquired') this.grantedTo.set(event.actor, event.token);
      if (event.kind === 'write_accepted' && this.grantedTo.has(event.actor)) {
        this.wroteUnder.set(event.actor, this.grantedTo.get(event.actor));
      }
    }
  }
}
