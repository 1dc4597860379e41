import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { writeDelayedPacket } from '../../db/delayed-packet-write';
import { appendEvent } from '../../db/events';
import { readLeaseByDatabaseClock } from '../../db/lease-clock';
import { acquireLease, type Lease, renewLease } from '../../db/leases';
import { toFencingError } from '../../db/pool';
import type { WorkerIdentity } from '../../db/worker-identity';
import { LABS } from '../labs/index';
import { isFencingError } from '../model/core/errors';
import type { Token } from '../model/core/token';
import type { WriteResult } from '../model/core/write-result';
import { hasDriftingClock } from '../model/lab/lab-kinds';
import { type WorkerClock, workerClock } from '../model/lab/worker-clock';
import type { PauseCommand, PauseTrigger, WorkerConfig, WorkerPhase, WorkerStatus } from './protocol';
import { writeForLab } from './write-paths';
import { answeredOrRetried } from './write-retry';

export const ACQUIRE_RETRY_MS = 50;
/** After a lock or statement timeout (someone else held a lock): the same call again, after this long, growing. */
const BUSY_RETRY_FIRST_MS = 50;
const BUSY_RETRY_MAX_MS = 500;
/** lock_not_available (lock_timeout), query_canceled (statement_timeout), deadlock_detected: nothing was done. */
const BUSY_CODES = new Set(['55P03', '57014', '40P01']);
const RECONNECT_FIRST_MS = 200;
const RATE_LIMITED_WAIT_MS = 1_000;
const RECONNECT_MAX_MS = 2_000;

/** Where the lease loop says how it stands: the listener thread, which beats it into the status row. */
export type WorkerReport = {
  status(status: WorkerStatus): void;
  /** Said just before the loop blocks: the listener wakes it when the pause ends. */
  paused(trigger: PauseTrigger): void;
};

/** What the worker believes about its lease. It may be wrong: that is the whole point. */
type Belief = { leaseToken: Token; writeToken: Token; until: number };

/**
 * A lease client as real ones are written: acquire (retrying while someone else holds the lease),
 * then check its own belief by its own clock, write with its token, renew on schedule; when a
 * renewal is refused or a write is rejected as stale, it has lost the lease and acquires again.
 *
 * Pauses only ever happen on this loop, at its safe points (between database calls, or at the
 * critical window), so a frozen worker never sits inside an open transaction.
 */
export class LeaseClient {
  private belief: Belief | undefined;
  private phase: WorkerPhase = 'starting';
  private armed = false;
  private pauseRequested = false;
  private wake: (() => void) | undefined;
  private writes = 0;
  /** Events the database refused as over the rate for one worker (said once). */
  private eventsRefused = 0;
  /** The per-process-counter lab's mistake: a token counter that lives and dies with the process. */
  private processCounter = 0;
  /**
   * The clock this worker reads: it keeps time, except in the drifting-clock labs, where it may run
   * slow by the worker's setting. Its renewals, writes and belief are timed on it; nothing else is.
   */
  private readonly clock: WorkerClock;

  constructor(
    private readonly config: WorkerConfig,
    private session: pg.Client,
    private readonly connect: () => Promise<pg.Client>,
    private readonly reportTo: WorkerReport,
    /** Blocks the main thread until the listener wakes it (freeze.ts); `resumed: false` means stop. */
    private readonly freezeUntilResumed: () => { resumed: boolean; frozenMs: number },
  ) {
    const slow = hasDriftingClock(config.lab.kind) ? (config.clockSlowPercent ?? 0) : 0;
    this.clock = workerClock(slow, Date.now);
  }

  requestPause(): void {
    this.pauseRequested = true;
    this.wake?.();
  }

  arm(armed: boolean): void {
    this.armed = armed;
    void this.report();
  }

  cancelPauses(): void {
    this.pauseRequested = false;
    this.arm(false);
  }

  /** A pause command, as the listener thread passes it on from the database. */
  obey(command: PauseCommand): void {
    if (command === 'pause-now') this.requestPause();
    else if (command === 'arm-critical-pause') this.arm(true);
    else this.cancelPauses();
  }

  /**
   * Runs until the process ends. Throws a FencingError `lab_reset` when the database refuses this
   * worker because the lab was reset since it joined: it must stop, and nothing of it lands in the
   * new run (every statement it sent after the reset was refused).
   */
  async run(): Promise<never> {
    for (;;) {
      try {
        const lease = await this.acquire();
        await this.hold(lease);
      } catch (error) {
        const known = toFencingError(error);
        if (isFencingError(known, 'lab_reset')) throw known;
        if (isFencingError(known, 'rate_limited')) {
          // Over the database's rate for one worker's leases and writes (fl_take_event_budget): ours
          // never are; a worker that is waits, and starts over from taking the lease.
          this.belief = undefined;
          await this.nap(RATE_LIMITED_WAIT_MS);
          continue;
        }
        if (!isFencingError(known, 'db_unavailable')) throw error;
        await this.reconnect();
      }
    }
  }

  /** The database went away: connect again (backing off), then say what was lost, and start over. */
  private async reconnect(): Promise<void> {
    const token = this.belief?.leaseToken;
    this.belief = undefined;
    await this.setPhase('reconnecting');
    // The session is the one that failed: nothing to end cleanly.
    await this.session.end().catch(() => undefined);
    for (let delayMs = RECONNECT_FIRST_MS; ; delayMs = Math.min(delayMs * 2, RECONNECT_MAX_MS)) {
      await this.nap(delayMs);
      try {
        this.session = await this.connect();
        // Recorded before carrying on, on the new session: a database still recovering (or gone
        // again) sends the worker back to its back-off rather than losing what it has to say.
        if (token !== undefined) {
          await this.event('lease_lost', { token, detail: { reason: 'my database connection was lost' } });
        }
        return;
      } catch (error) {
        if (!isFencingError(toFencingError(error), 'db_unavailable')) throw error;
        // The session is the one that failed: nothing to end cleanly.
        await this.session.end().catch(() => undefined);
      }
    }
  }

  private async acquire(): Promise<Lease> {
    const { lab, name, leaseTtlMs } = this.config;
    this.belief = undefined;
    await this.setPhase('acquiring');
    for (;;) {
      await this.safePoint();
      const result = await this.whenFree(() =>
        acquireLease(
          {
            resource: lab.resource,
            holder: name,
            ttlMs: leaseTtlMs,
            lab: lab.id,
            generation: this.config.generation,
            tokenSource: LABS[lab.kind].traits.textEpoch ? 'lab_text_epoch' : 'write_epoch',
            // A lease service whose takeover keeps the old token (0021).
            takeover: LABS[lab.kind].traits.tokenSource === 'kept-on-takeover' ? 'same-token' : 'mint',
            as: this.identity(),
          },
          this.session,
        ),
      );
      if (result.outcome === 'granted') return result.lease;
      await this.nap(ACQUIRE_RETRY_MS);
    }
  }

  private async hold(lease: Lease): Promise<void> {
    const { leaseTtlMs, renewEveryMs, writeEveryMs } = this.config;
    const counts = LABS[this.config.lab.kind].traits.tokenSource === 'worker-counter';
    const writeToken = counts ? (++this.processCounter as Token) : lease.token;
    const now = () => this.clock.now();
    this.belief = { leaseToken: lease.token, writeToken, until: now() + leaseTtlMs };
    await this.setPhase('holding');
    let nextRenew = now() + renewEveryMs;
    let nextWrite = now();

    for (;;) {
      await this.nap(Math.min(nextRenew, nextWrite) - now());
      await this.safePoint();
      if (now() >= nextRenew) {
        if (!(await this.renew(lease))) return;
        nextRenew = now() + renewEveryMs;
      }
      if (now() >= nextWrite) {
        const scheduledAt = nextWrite;
        if (!(await this.write(scheduledAt))) return;
        nextWrite = now() + writeEveryMs;
      }
    }
  }

  private async renew(lease: Lease): Promise<boolean> {
    const { lab, name, leaseTtlMs, generation } = this.config;
    const result = await this.whenFree(() =>
      renewLease(
        {
          resource: lab.resource,
          holder: name,
          token: lease.token,
          ttlMs: leaseTtlMs,
          lab: lab.id,
          generation,
          as: this.identity(),
        },
        this.session,
      ),
    );
    if (result.outcome === 'lost') {
      await this.lost('my renewal was refused', result.current);
      return false;
    }
    if (this.belief) this.belief.until = this.clock.now() + leaseTtlMs;
    await this.report();
    return true;
  }

  private async write(scheduledAt: number): Promise<boolean> {
    const belief = this.belief;
    if (!belief) return false;
    if (!(await this.stillHolds(belief))) return false;
    ++this.writes;
    const value = this.config.writeValue ?? `${this.config.name}-${this.writes}`;
    // The critical window (a freeze, write_sent) is passed once, though a busy write is sent again,
    // on the session it was first sent on. A write a client timeout gave up on (the delayed-packet
    // labs: retryAfterMs) is never sent again by this loop: its retry is the lab's own, on a new connection.
    let windowPassed: Promise<void> | undefined;
    const session = this.session;
    const send = () =>
      writeForLab(
        {
          lab: this.config.lab,
          value,
          token: belief.writeToken,
          actor: this.config.name,
          generation: this.config.generation,
          as: this.identity(),
          isOverdue: () => this.clock.now() - scheduledAt > this.config.writeEveryMs,
          criticalWindow: () => {
            windowPassed ??= this.criticalWindow(value, belief.writeToken);
            return windowPassed;
          },
        },
        session,
      );
    const sent = this.config.retryAfterMs === undefined ? this.whenFree(send) : send();
    const result = await answeredOrRetried(sent, this.config.retryAfterMs, () =>
      this.retryOnNewConnection(value, belief.writeToken),
    );
    if (result.outcome === 'stale') {
      await this.lost(`my write with token ${result.presentedToken} was rejected: the row holds ${result.storedToken}`);
      return false;
    }
    return true;
  }

  /**
   * The check every lease client makes before it writes: do I still hold the lease? By its own clock
   * (what a lease client does), or, set so in a drifting-clock lab, by the database's: it asks.
   */
  private async stillHolds(belief: Belief): Promise<boolean> {
    if (this.config.leaseClock !== 'database') {
      if (this.clock.now() < belief.until) return true;
      await this.lost('my own clock says my lease ran out');
      return false;
    }
    const judged = await this.whenFree(() =>
      readLeaseByDatabaseClock({ as: this.identity(), token: belief.leaseToken }, this.session),
    );
    if (judged.holding) return true;
    const mine = `my own clock reads ${new Date(this.clock.now()).toISOString()} and says it runs until ${new Date(belief.until).toISOString()}`;
    await this.lost(
      judged.expiresAt
        ? `the database's clock says my lease ran out at ${judged.expiresAt.toISOString()}; ${mine}`
        : `the database says my lease is over${judged.heldBy ? ` and ${judged.heldBy} holds it now` : ''}; ${mine}`,
    );
    return false;
  }

  /**
   * The delayed-packet labs' client timeout: the connection whose write went unanswered is let go
   * (its held bytes, and its goodbye after them, still travel), and the same write, with the same
   * token, goes again on a new connection, the lease not checked again.
   */
  private async retryOnNewConnection(value: string, token: Token): Promise<WriteResult> {
    const stuck = this.session;
    this.session = await this.connect();
    // The stuck session is left behind on purpose: how it ends is not this write's business.
    void stuck.end().catch(() => undefined);
    await this.event('write_sent', {
      token,
      detail: { value, attempt: 'retry', timedOutAfterMs: this.config.retryAfterMs },
    });
    return writeDelayedPacket(
      { as: this.identity(), rowId: this.config.lab.rowId, value, token, attempt: 'retry' },
      this.session,
    );
  }

  /** Between the lease check and the write reaching the database. */
  private async criticalWindow(value: string, token: Token): Promise<void> {
    if (this.armed) {
      this.armed = false;
      await this.freeze('critical-window');
    }
    await this.event('write_sent', { token, detail: { value, ...this.clockReading() } });
  }

  private async lost(reason: string, current?: Lease): Promise<void> {
    const token = this.belief?.leaseToken;
    await this.event('lease_lost', {
      ...(token === undefined ? {} : { token }),
      // What its own clock read when it was told: a slow clock may say the lease still runs.
      detail: {
        reason,
        ...(current ? { heldBy: current.holder, heldWithToken: current.token } : {}),
        ...this.clockReading(),
      },
    });
    this.belief = undefined;
  }

  private async safePoint(): Promise<void> {
    if (this.pauseRequested) {
      this.pauseRequested = false;
      await this.freeze('now');
    }
  }

  private async freeze(trigger: PauseTrigger): Promise<void> {
    // The token it believes it holds travels as the event's token: the walkthrough names it from there.
    await this.event('pause_started', {
      ...(this.belief ? { token: this.belief.writeToken } : {}),
      detail: { trigger, belief: this.describeBelief() },
    });
    const before = this.phase;
    await this.setPhase('paused');
    this.reportTo.paused(trigger);
    const { resumed, frozenMs } = this.freezeUntilResumed();
    if (!resumed) process.exit(0); // told to stop while frozen: nobody will resume us
    await this.event('pause_ended', {
      detail: {
        frozenMs,
        belief: this.describeBelief(),
        ...(this.belief ? { believedUntil: new Date(this.belief.until).toISOString() } : {}),
      },
    });
    await this.setPhase(before);
  }

  private describeBelief(): string {
    if (!this.belief) return 'I hold no lease';
    const slow = this.clock.slowPercent > 0 ? `, which runs ${this.clock.slowPercent} % slow` : '';
    return `I hold token ${this.belief.writeToken} until ${new Date(this.belief.until).toISOString()} (by my clock${slow})`;
  }

  /**
   * What a worker with a drifting clock read on it when it sent a write, and what it believed:
   * the walkthrough sets it beside the database's expiry. Nothing for a clock that keeps time.
   */
  private clockReading(): Record<string, unknown> {
    if (this.clock.slowPercent === 0) return {};
    return {
      myClock: new Date(this.clock.now()).toISOString(),
      clockSlowPercent: this.clock.slowPercent,
      ...(this.belief ? { believedUntil: new Date(this.belief.until).toISOString() } : {}),
    };
  }

  /** Sleeps `ms` by its own clock, but wakes early when a pause is requested so that it strikes promptly. */
  private async nap(ms: number): Promise<void> {
    if (ms <= 0 || this.pauseRequested) return;
    const controller = new AbortController();
    this.wake = () => controller.abort();
    // Woken early on purpose (a command came): the loop goes on.
    await sleep(this.clock.realMsFor(ms), undefined, { signal: controller.signal }).catch(() => undefined);
    this.wake = undefined;
  }

  private async event(
    kind: 'write_sent' | 'lease_lost' | 'pause_started' | 'pause_ended',
    fields: { token?: Token; detail?: Record<string, unknown> },
  ): Promise<void> {
    const { lab, name } = this.config;
    try {
      await this.whenFree(() =>
        appendEvent(
          this.session,
          { lab: lab.id, actor: name, kind, resource: lab.resource, ...fields },
          { as: this.identity() },
        ),
      );
    } catch (error) {
      // Over the database's rate for what one worker records itself (fl_take_event_budget): this event
      // goes unrecorded, the worker goes on. Ours stay under it.
      if (!isFencingError(error, 'rate_limited')) throw error;
      if (this.eventsRefused++ === 0) console.warn(`${name}: ${error.message} (an event went unrecorded)`);
    }
  }

  /**
   * One call to the database, sent again while it fails for waiting on someone else's lock (its
   * lock_timeout, its statement_timeout, a deadlock): such a call did nothing, and the wait is
   * someone else's, never a reason to stop. A session of a person's worker line that holds up this
   * worker is ended by the watchdog within a few hundred milliseconds (fl_end_blocking_worker_sessions).
   */
  private async whenFree<T>(call: () => Promise<T>): Promise<T> {
    for (let delayMs = BUSY_RETRY_FIRST_MS; ; delayMs = Math.min(delayMs * 2, BUSY_RETRY_MAX_MS)) {
      try {
        return await call();
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
        if (!BUSY_CODES.has(String(code)) && !BUSY_CODES.has(String(cause))) throw error;
        await sleep(delayMs);
      }
    }
  }

  /** Who this worker is, presented to every call it makes (db/worker-identity.ts). */
  private identity(): WorkerIdentity {
    return { lab: this.config.lab.id, name: this.config.name, instance: this.config.instance };
  }

  private async setPhase(phase: WorkerPhase): Promise<void> {
    this.phase = phase;
    await this.report();
  }

  private async report(): Promise<void> {
    this.reportTo.status({
      phase: this.phase,
      armed: this.armed,
      ...(this.belief
        ? { token: this.belief.writeToken, believedUntil: new Date(this.belief.until).toISOString() }
        : {}),
    });
  }
}
