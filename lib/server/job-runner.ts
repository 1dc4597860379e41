import 'server-only';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { Logger, type Runner, run, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import { failAbandonedGuardAttempts, GUARD_ATTACK_TASK, SERVER_STALE_MS } from '../../db/guard-queue';
import { beatJobServer, leaveJobServers } from '../../db/job-servers';
import { getPool, newPool } from '../../db/pool';
import { finishSweepsWithoutJobs, SWEEP_RUN_TASK } from '../../db/sweeps';
import { WHAT_IF_TASK } from '../../db/what-if-jobs';
import { roomSettings } from '../config/room-settings';
import { singleton } from '../os/process-singletons';
import { runSweepRunJob } from '../sweep/sweep-run-job';
import { runGuardAttackJob } from './guard-attack-job';
import { runWhatIfJob } from './what-if-job';

/*
 * This app server's share of the room's job queue (issue 24): graphile-worker runs guard attacks,
 * what-if forks' runs and sweeps' runs from the queue in the job queue's own database (db/jobs-database.ts: the
 * lab's database lets the worker role in, and any session there could NOTIFY graphile-worker to stop), `FENCING_LAB_MAX_GUARD_ATTACKS` at a time
 * (two per CPU by default, at most 4: an attack mostly waits on its story, a pause, a lease expiry), and
 * a beat every 500 ms says this server lives and unlocks the jobs of a peer that stopped beating
 * (db/job-servers.ts). One owner per server process (lib/os/process-singletons.ts: Next loads modules more than
 * once); it starts with the server (instrumentation.ts) and keeps trying while the database is away: the
 * library reconnects its pool, the beat retries every beat. A Next server that stops does not close it
 * (Next ends the process on SIGTERM): its row goes stale, and a peer, or its own next start, unlocks
 * its jobs after SERVER_STALE_MS. `close()` is for the hosts and tests that stop one cleanly.
 */

const BEAT_MS = 500;
const POLL_MS = 1_000;
const MAX_SLOTS = 64;

export class JobRunner {
  readonly server = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly slots: number;
  private readonly poolIds: string[] = [];
  /** The jobs this server runs now, by id (graphile-worker's events). */
  private readonly active = new Set<string>();
  /** Since when every beat succeeded: peers are judged only after SERVER_STALE_MS of it. */
  private healthySince: number | undefined;
  private beating: Promise<void> | undefined;
  private pool: pg.Pool | undefined;
  private runner: Runner | undefined;
  private beat: NodeJS.Timeout | undefined;
  private closed = false;
  private starting: Promise<void> | undefined;

  /** Its slots: FENCING_LAB_MAX_GUARD_ATTACKS (its default, and why, in lib/model/core/room-settings.ts). */
  constructor(slots = roomSettings().maxGuardAttacks) {
    // job_servers holds at most 64 a server (a beat refused for more would hide a live server).
    this.slots = Math.min(MAX_SLOTS, slots);
  }

  /** Starts taking jobs (idempotent); a failed start (no database yet) is tried again after a while. */
  start(): Promise<void> {
    this.starting ??= this.startOnce().catch((error: Error) => {
      console.error(`[jobs] could not start (${error.message}); trying again in 5 s`);
      this.starting = undefined;
      if (!this.closed) setTimeout(() => void this.start(), 5_000).unref();
    });
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    if (this.closed) return;
    // On the job queue's own database (db/jobs-database.ts), where no worker role's session can reach it.
    const pool = newPool({
      database: 'jobs',
      max: this.slots + 3,
      applicationName: 'fencing-lab jobs',
      onIdleError: (error) => console.error('[jobs] idle client error:', error.message),
    });
    // A client's own error (the database restarting under a running job) must not surface as an uncaughtException.
    pool.on('connect', (client) => client.on('error', (error) => console.error('[jobs] client error:', error.message)));
    const events = new EventEmitter() as WorkerEvents;
    // Since graphile-worker 0.16 a job is locked by its pool's id, which the beat publishes.
    events.on('pool:create', ({ workerPool }) => this.poolIds.push(workerPool.id));
    events.on('job:start', ({ job }) => this.active.add(String(job.id)));
    events.on('job:complete', ({ job }) => this.active.delete(String(job.id)));
    events.on('job:error', ({ job, error }) =>
      console.error(`[jobs] ${job.task_identifier} job ${job.id} failed: ${(error as Error)?.message ?? error}`),
    );
    try {
      this.runner = await run({
        pgPool: pool,
        events,
        concurrency: this.slots,
        pollInterval: POLL_MS,
        noHandleSignals: true,
        logger: new Logger(() => (level, message) => {
          if (level === 'error') console.error(`[jobs] ${message}`);
        }),
        taskList: {
          [GUARD_ATTACK_TASK]: (payload, helpers) => runGuardAttackJob(payload, this.server, helpers.job),
          [WHAT_IF_TASK]: (payload) => runWhatIfJob(payload),
          [SWEEP_RUN_TASK]: (payload) => runSweepRunJob(payload),
        },
      });
    } catch (error) {
      // The pool that failed to start may have nothing to end; the first error is rethrown.
      await pool.end().catch(() => undefined);
      throw error;
    }
    this.pool = pool;
    this.beatSoon(0);
  }

  private beatSoon(ms: number): void {
    if (this.closed) return;
    this.beat = setTimeout(() => {
      this.beating = this.beatOnce();
    }, ms);
    this.beat.unref();
  }

  private async beatOnce(): Promise<void> {
    const pool = this.pool;
    if (!pool || this.closed) return;
    try {
      const now = Date.now();
      const gone = await beatJobServer(
        {
          server: this.server,
          poolIds: this.poolIds,
          slots: this.slots,
          staleMs: SERVER_STALE_MS,
          judge: this.healthySince !== undefined && now - this.healthySince >= SERVER_STALE_MS,
          activeJobIds: [...this.active],
        },
        pool,
      );
      this.healthySince ??= now;
      for (const peer of gone) console.error(`[jobs] app server ${peer} stopped beating: its jobs are unlocked`);
      await failAbandonedGuardAttempts(getPool(), pool);
      await finishSweepsWithoutJobs(getPool(), pool);
    } catch (error) {
      this.healthySince = undefined;
      if (!this.closed) console.error(`[jobs] beat failed: ${(error as Error).message}`);
    }
    this.beatSoon(BEAT_MS);
  }

  /** Stops taking jobs, lets the running ones end (their workers are ended by the supervisor), leaves the list. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.beat) clearTimeout(this.beat);
    await this.beating;
    // Stopping: a start that failed was logged where it failed.
    await this.starting?.catch(() => undefined);
    // Stopping: what fails now fails with the server going away.
    await this.runner?.stop().catch(() => undefined);
    if (this.pool) {
      // The database away: the other servers see this one's heartbeat stop and take its jobs.
      await leaveJobServers(this.server, this.pool).catch(() => undefined);
      // Stopping: a pool that cannot end cleanly ends with the process.
      await this.pool.end().catch(() => undefined);
    }
  }
}

/** This server's one job runner, started on first call. */
export function getJobRunner(): JobRunner {
  const runner = singleton(
    'server.job-runner',
    () => new JobRunner(),
    (made) => made.close(),
  );
  void runner.start();
  return runner;
}
