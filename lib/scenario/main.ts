import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { closePool } from '../../db/pool';
import { ensureLocalWorkerPassword } from '../../db/roles';
import { hasPacketRelay, hasPauseStory, isFencedKind, PAUSE_FENCED } from '../labs/traits';
import { COMMAND_EXIT, cleanUpOnInterrupt, commandDatabase, commandFailure } from '../launcher/command-database';
import { crashPostmaster, type EmbeddedCluster, startEmbeddedPostgres } from '../launcher/embedded-postgres';
import { dataDir, PROJECT_ROOT } from '../launcher/paths';
import { UsageError } from '../model/core/errors';
import { FAILOVER_LAB } from '../model/failover/failover-events';
import { CHAOS_LIMITS } from '../model/lab/lab-inputs';
import { sharedLab } from '../model/lab/lab-instance';
import { hasDriftingClock, isWorkerLabId, type LabId, WORKER_LAB_IDS } from '../model/lab/lab-kinds';
import { isLeaseClock, LEASE_CLOCKS, type LeaseClock } from '../model/lab/worker-clock';
import { StoryStalled } from '../model/story/story-engine';
import { parseNumberList, type SweepGrid, sweepInput } from '../model/sweep/sweep-grid';
import { DEFAULT_SWEEP, SWEEP_LIMITS } from '../model/sweep/sweep-limits';
import { startWorkersFromBundle } from '../os/worker-bundle';
import { getSupervisor } from '../supervisor/supervisor';
import { closeOpenCellLabs } from '../sweep/cell-labs';
import { EXEC_MAX_CHARS } from '../worker/args';
import { runChaosScenario } from './chaos';
import { runDelayedPacketScenario } from './delayed-packet';
import { runDelayedPacketRetryScenario } from './delayed-packet-retry';
import { runDriftScenario } from './drift';
import { runDurabilityScenario } from './durability';
import { type ExecLanes, stopAllExecLanes } from './exec-lanes';
import { runFailoverScenario, stopFailoverPair } from './failover';
import { LabInUseError, runPauseScenario } from './pause';
import { jsonPrinter, type StoryPrinter, textPrinter } from './story';
import { runSweepScenario } from './sweep';

/*
 * `npm run scenario -- <name> [options]`, with real worker processes.
 *   pause [--lab <a lab of the pause story>] | no-fencing | read-check-write | token-as-text
 *     | per-process-counter | bypass | same-token-takeover (the pause, where B's takeover keeps A's token)
 *     | drifting-clock | drifting-clock-fenced [--lease-clock own|database] (nothing freezes: A's slow
 *       clock, lib/scenario/drift.ts; with database, A asks the database before each write)
 *     | delayed-packet | delayed-packet-unfenced [--retry] (nothing freezes: the network holds A's write,
 *       delayed-packet.ts; with --retry A's client times out and sends it again, delayed-packet-retry.ts)
 *   chaos [--seed 42] [--workers 5] [--seconds 30] [--lab fenced] [--db-crash]
 *   durability [--cycles 20]
 *   failover [--sync] [--grants-past-cut 0] (a primary and a standby of its own: lib/scenario/failover.ts)
 *   sweep --pauses 200,800,2000 --ttls 500,1500 [--drifts 0,50] [--concurrency 2] (the timed pause
 *     story over a grid, without fencing and fenced, each run in a private lab: lib/scenario/sweep.ts)
 * The pause story's scenarios take --exec-a "<command>" and --exec-b "<command>": a person's program as A or B
 * (exec-lanes.ts); the exit code then says whether the verdict is the one the lab should give (0) or not (1).
 * Every scenario takes --json. Exit codes: 0 safe outcome, 1 unsafe outcome (the pause and drifting-clock
 * scenarios: the checker's verdict on the recorded events, lib/scenario/told-run.ts; what every broken
 * lab should show), 2 bad usage, 3 no database reachable, 4 any other failure, 5 the lab is in use
 * by another process (a running app), 130 interrupted.
 */

const PAUSE_SCENARIOS: ReadonlyMap<string, LabId> = new Map([
  ['pause', PAUSE_FENCED],
  ...WORKER_LAB_IDS.filter((lab) => lab !== PAUSE_FENCED).map((lab) => [lab, lab] as const),
]);
const NAMES = [...PAUSE_SCENARIOS.keys(), 'chaos', 'durability', FAILOVER_LAB, 'sweep'];
/** The labs that tell the pause story: `pause --lab` takes one. */
const PAUSE_STORY_LABS = WORKER_LAB_IDS.filter(hasPauseStory);
const EXIT = { safe: 0, help: 0, unsafe: 1, ...COMMAND_EXIT, inUse: 5 } as const;
/** Crash cycles of the durability scenario. */
const CYCLES = { min: 1, max: 500, default: 20 } as const;
/** Grants of other locks after the cut, in the failover scenario: past 32 or so, a token comes back. */
const GRANTS_PAST_CUT = { min: 0, max: 200, default: 0 } as const;
const USAGE = `usage: npm run scenario -- <${NAMES.join('|')}> [--json]
  chaos:      [--seed ${CHAOS_LIMITS.seed.default}] [--workers ${CHAOS_LIMITS.workers.default}] [--seconds ${CHAOS_LIMITS.seconds.default}] [--lab ${WORKER_LAB_IDS.join('|')}] [--db-crash]
  durability: [--cycles ${CYCLES.default}]
  delayed-packet, delayed-packet-unfenced: [--retry] (A's client times out and retries the held write)
  drifting-clock, drifting-clock-fenced: [--lease-clock ${LEASE_CLOCKS.join('|')}] (database: A asks the database before each write)
  failover:   [--sync] [--grants-past-cut ${GRANTS_PAST_CUT.default}]
  pause:      [--lab <lab>] (the pause story in that lab, one of ${PAUSE_STORY_LABS.join(', ')})
  the pause story (pause, no-fencing, …): [--exec-a "<command>"] [--exec-b "<command>"] (your own lock client as A or B,
              run by npm run worker -- --exec; exits 0 when the verdict is the one the lab should give, 1 when
              it is not or your program stopped the story) [--runner "python3 clients/python/runner.py"] (another
              runner that takes the worker's --db --lab --name --exec)
  sweep:      --pauses ${DEFAULT_SWEEP.pausesMs.join(',')} --ttls ${DEFAULT_SWEEP.ttlsMs.join(',')} [--drifts 0] [--concurrency ${SWEEP_LIMITS.concurrency.default}] (ms, ms, % slow)`;

let cluster: EmbeddedCluster | undefined;

type Options = {
  json: boolean;
  seed: number;
  workers: number;
  seconds: number;
  lab: LabId;
  dbCrash: boolean;
  /** The delayed-packet scenarios: A's client times out and retries the held write. */
  retry: boolean;
  /** The drifting-clock scenarios: whose clock A judges its lease by before each write. */
  leaseClock: LeaseClock;
  cycles: number;
  sync: boolean;
  grantsPastCut: number;
  /** The sweep's grid and how many runs at once. */
  sweep: { grid: SweepGrid; concurrency: number };
  /** The pause story's workers that are a person's program (--exec-a, --exec-b): exec-lanes.ts. */
  execLanes: ExecLanes;
  /** The runner of those programs, when not `npm run worker` (--runner): a command taking its --db, --lab, --name, --exec. */
  runner: string | undefined;
  /** The lab whose story a lab's scenario tells (its name's, or `pause --lab`'s); none for the others. */
  story: LabId | undefined;
};

/** --exec-a, --exec-b: a command line, as `npm run worker -- --exec` takes it. */
const execCommand = z
  .string()
  .refine((command) => command.trim() !== '', 'an --exec-a or --exec-b command is not empty')
  .refine(
    (command) => command.length <= EXEC_MAX_CHARS,
    `an --exec-a or --exec-b command is at most ${EXEC_MAX_CHARS} characters`,
  )
  .optional();
const execLanesInput = z.object({ A: execCommand, B: execCommand }).strict();

function parse(argv: string[]): { name: string; options: Options } {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          json: { type: 'boolean', default: false },
          seed: { type: 'string' },
          workers: { type: 'string' },
          seconds: { type: 'string' },
          lab: { type: 'string' },
          'db-crash': { type: 'boolean', default: false },
          retry: { type: 'boolean', default: false },
          'lease-clock': { type: 'string' },
          cycles: { type: 'string' },
          sync: { type: 'boolean', default: false },
          'grants-past-cut': { type: 'string' },
          pauses: { type: 'string' },
          ttls: { type: 'string' },
          drifts: { type: 'string' },
          concurrency: { type: 'string' },
          'exec-a': { type: 'string' },
          'exec-b': { type: 'string' },
          runner: { type: 'string' },
        },
      });
    } catch (error) {
      const message = (error as Error).message;
      const unknown = message.match(/Unknown option '([^']+)'/)?.[1];
      throw new UsageError(unknown ? `unknown option ${unknown}` : message);
    }
  })();
  const [name, ...extra] = positionals;
  if (!name) throw new UsageError('which scenario?');
  if (!NAMES.includes(name)) throw new UsageError(`unknown scenario ${JSON.stringify(name)}`);
  if (extra.length) throw new UsageError(`unexpected ${extra.join(' ')}`);
  const whole = (
    flag: string,
    raw: string | undefined,
    { min, max, default: fallback }: { min: number; max: number; default: number },
  ) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    }
    return value;
  };
  const leaseClock = values['lease-clock'] ?? 'own';
  if (!isLeaseClock(leaseClock)) throw new UsageError(`--lease-clock must be one of ${LEASE_CLOCKS.join(', ')}`);
  // --lab: chaos's lab, or the lab the pause scenario tells its story in (`pause --lab no-fencing
  // --exec-a …`, as issue 36 writes it); every other scenario names its lab itself.
  if (values.lab !== undefined && name !== 'chaos' && name !== 'pause') {
    throw new UsageError(
      `--lab is for chaos and pause only, not ${name} (the pause story in another lab: pause --lab <lab>)`,
    );
  }
  const lab = values.lab ?? PAUSE_FENCED;
  if (!isWorkerLabId(lab)) throw new UsageError(`--lab must be one of ${WORKER_LAB_IDS.join(', ')}`);
  if (name === 'pause' && !hasPauseStory(lab)) {
    throw new UsageError(`--lab for the pause story must be one of ${PAUSE_STORY_LABS.join(', ')}`);
  }
  const story = name === 'pause' ? lab : PAUSE_SCENARIOS.get(name);
  if (leaseClock !== 'own' && !(story && hasDriftingClock(story))) {
    throw new UsageError('--lease-clock is for the drifting-clock scenarios only');
  }
  const sweepFlags = [values.pauses, values.ttls, values.drifts, values.concurrency].some((v) => v !== undefined);
  if (sweepFlags && name !== 'sweep')
    throw new UsageError('--pauses, --ttls, --drifts and --concurrency are for the sweep only');
  const list = (flag: string, raw: string | undefined, fallback: readonly number[]) => {
    if (raw === undefined) return [...fallback];
    const values = parseNumberList(raw);
    if (!values) throw new UsageError(`--${flag} must be numbers separated by commas, got ${JSON.stringify(raw)}`);
    return values;
  };
  const sweep = sweepInput.safeParse({
    grid: {
      pausesMs: list('pauses', values.pauses, DEFAULT_SWEEP.pausesMs),
      ttlsMs: list('ttls', values.ttls, DEFAULT_SWEEP.ttlsMs),
      driftsPercent: list('drifts', values.drifts, DEFAULT_SWEEP.driftsPercent),
    },
    concurrency: values.concurrency === undefined ? SWEEP_LIMITS.concurrency.default : Number(values.concurrency),
  });
  if (!sweep.success) throw new UsageError(sweep.error.issues[0]?.message ?? 'invalid sweep');
  const exec = execLanesInput.safeParse({ A: values['exec-a'], B: values['exec-b'] });
  if (!exec.success) throw new UsageError(exec.error.issues[0]?.message ?? 'invalid --exec-a or --exec-b');
  const execLanes = Object.fromEntries(Object.entries(exec.data).filter(([, command]) => command !== undefined));
  if (Object.keys(execLanes).length > 0 && !(story && hasPauseStory(story))) {
    throw new UsageError(
      `--exec-a and --exec-b are for the pause story's scenarios: ${[...PAUSE_SCENARIOS]
        .filter(([, kind]) => hasPauseStory(kind))
        .map(([n]) => n)
        .join(', ')}`,
    );
  }
  const runner = values.runner;
  if (runner !== undefined && (runner.trim() === '' || Object.keys(execLanes).length === 0)) {
    throw new UsageError('--runner is a command that runs the --exec-a or --exec-b program, with one of them');
  }
  return {
    name,
    options: {
      json: values.json ?? false,
      seed: whole('seed', values.seed, CHAOS_LIMITS.seed),
      workers: whole('workers', values.workers, CHAOS_LIMITS.workers),
      seconds: whole('seconds', values.seconds, CHAOS_LIMITS.seconds),
      lab,
      dbCrash: values['db-crash'] ?? false,
      retry: values.retry ?? false,
      leaseClock,
      cycles: whole('cycles', values.cycles, CYCLES),
      sync: values.sync ?? false,
      grantsPastCut: whole('grants-past-cut', values['grants-past-cut'], GRANTS_PAST_CUT),
      sweep: sweep.data,
      execLanes,
      runner,
      story,
    },
  };
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return EXIT.help;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${USAGE}\n${error.message}`);
    return EXIT.usage;
  }
  const { name, options } = parsed;
  const write = (text: string) => console.log(text);
  const print: StoryPrinter = options.json ? jsonPrinter(write) : textPrinter(write);

  try {
    if (name === 'durability')
      return (await runDurabilityScenario(options.cycles, print)).safe ? EXIT.safe : EXIT.unsafe;
    cluster = await commandDatabase();
    // Its workers connect as the local worker role (db/roles.ts).
    process.env.FENCING_LAB_LOCAL_WORKER_PASSWORD = await ensureLocalWorkerPassword(process.env.DATABASE_URL as string);
    if (name === FAILOVER_LAB) {
      const outcome = await runFailoverScenario(
        { mode: options.sync ? 'sync' : 'async', grantsPastCut: options.grantsPastCut, dataDir: dataDir() },
        print,
      );
      return outcome.safe ? EXIT.safe : EXIT.unsafe;
    }
    if (name === 'sweep') {
      // The bar goes to a terminal only, on stderr: the lines on stdout stay one per run.
      const bar = process.stderr.isTTY ? (text: string) => process.stderr.write(`\r${text}`) : undefined;
      const outcome = await runSweepScenario(options.sweep, print, bar);
      if (bar) process.stderr.write('\n');
      return outcome.safe ? EXIT.safe : EXIT.unsafe;
    }
    const lab = options.story;
    if (lab !== undefined && hasPacketRelay(lab)) {
      const story = options.retry ? runDelayedPacketRetryScenario : runDelayedPacketScenario;
      return (await story(sharedLab(lab), print)).safe ? EXIT.safe : EXIT.unsafe;
    }
    if (options.retry) {
      throw new UsageError('--retry is for the delayed-packet scenarios only');
    }
    if (lab !== undefined && hasDriftingClock(lab)) {
      return (await runDriftScenario(sharedLab(lab), print, options.leaseClock)).safe ? EXIT.safe : EXIT.unsafe;
    }
    if (lab && Object.keys(options.execLanes).length > 0) {
      // A person's program as A or B: 0 when the checker's verdict is the one this lab should give.
      const exec = {
        lanes: options.execLanes,
        runner: options.runner,
        ownerUrl: process.env.DATABASE_URL as string,
        password: process.env.FENCING_LAB_LOCAL_WORKER_PASSWORD as string,
      };
      let outcome: Awaited<ReturnType<typeof runPauseScenario>>;
      try {
        outcome = await runPauseScenario(sharedLab(lab), print, exec);
      } catch (error) {
        // Your program stopped the story (it ended, or never did what the step waits for): not the verdict.
        if (!(error instanceof StoryStalled)) throw error;
        console.error(`the story could not go on: ${error.message}`);
        return EXIT.unsafe;
      }
      const should = isFencedKind(lab);
      const as = outcome.safe === should;
      print({
        step: 'exec-verdict',
        text: `${as ? 'As' : 'Not as'} the ${lab} lab should: ${should ? 'no write lost' : "A's late write lands over B's"} (${outcome.safe ? 'the checker found no violation' : 'the checker found a violation'}).`,
        asTheLabShould: as,
      });
      return as ? EXIT.safe : EXIT.unsafe;
    }
    if (lab) return (await runPauseScenario(sharedLab(lab), print)).safe ? EXIT.safe : EXIT.unsafe;
    if (options.dbCrash && !cluster?.owned) {
      throw new UsageError(
        '--db-crash needs the embedded database, started by this command (unset DATABASE_URL and stop the app)',
      );
    }
    const outcome = await runChaosScenario(
      {
        lab: sharedLab(options.lab),
        seed: options.seed,
        workers: options.workers,
        seconds: options.seconds,
        ...(options.dbCrash ? { crashDatabase } : {}),
      },
      print,
    );
    return outcome.safe ? EXIT.safe : EXIT.unsafe;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${USAGE}\n${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof LabInUseError) {
      console.error(error.message);
      return EXIT.inUse;
    }
    const failed = commandFailure('scenario', error);
    console.error(failed.words);
    return failed.code;
  } finally {
    await cleanUp();
  }
}

/** kill -9 of the postmaster, then a start on the same data directory (crash recovery runs). */
async function crashDatabase(): Promise<void> {
  if (!cluster) throw new Error('no embedded database to crash');
  await crashPostmaster(cluster);
  const restarted = await startEmbeddedPostgres({
    dataDir: path.join(dataDir(), 'pg'),
    preferredPort: cluster.port,
  });
  if (restarted.url !== cluster.url) {
    await closePool();
    process.env.DATABASE_URL = restarted.url;
  }
  cluster = restarted;
}

/** Workers first, then the pool, then the database if this command started it. */
async function cleanUp(): Promise<void> {
  await stopFailoverPair();
  // A person's programs run by the story (--exec-a, --exec-b): their runners end them.
  await stopAllExecLanes();
  // An interrupted sweep: its run labs still open are closed, their workers stopped, their histories kept.
  await closeOpenCellLabs('the command line running this sweep was interrupted').catch((error: unknown) =>
    console.error('[sweep] closing its run labs:', (error as Error).message),
  );
  await getSupervisor().shutdown();
  await closePool();
  await cluster?.stop();
  cluster = undefined;
}

cleanUpOnInterrupt(cleanUp);

// The workers this command's supervisors start load a bundle, not the TypeScript (lib/os/worker-bundle.ts).
await startWorkersFromBundle(PROJECT_ROOT);
process.exitCode = await main(process.argv.slice(2));
