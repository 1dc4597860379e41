import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../db/migrate';
import { closePool } from '../../db/pool';
import { ensureLocalWorkerPassword } from '../../db/roles';
import { COMMAND_EXIT, cleanUpOnInterrupt } from '../launcher/command-database';
import { crashPostmaster, type EmbeddedCluster, startEmbeddedPostgres } from '../launcher/embedded-postgres';
import { dataDir, PROJECT_ROOT } from '../launcher/paths';
import { UsageError } from '../model/core/errors';
import { soakOk, soakTotals } from '../model/soak/soak-report';
import { soakReportHref, soakReportId } from '../model/soak/soak-reports';
import { startWorkersFromBundle } from '../os/worker-bundle';
import { getSupervisor } from '../supervisor/supervisor';
import { parseSoakArgs, SOAK_USAGE } from './args';
import { runSoak } from './run-soak';

/*
 * `npm run soak -- --minutes N [--seed S]`: aimed chaos in every lab for N minutes, on a throwaway
 * embedded PostgreSQL of its own (so that it may crash it, kill -9, and never touches the room's
 * data), then a report in the app's data directory (<data>/soak/<id>/: report.md, report.html,
 * report.json and each lab's history for /replay), which the app lists at /soak. Exit codes: 0
 * every lab as expected, 1 a lab not as expected, 2 bad usage, 4 the soak could not run,
 * 130 interrupted.
 */

const EXIT = { expected: 0, unexpected: 1, usage: COMMAND_EXIT.usage, failed: COMMAND_EXIT.failed } as const;

let cluster: EmbeddedCluster | undefined;
let scratch: string | undefined;

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseSoakArgs>;
  try {
    args = parseSoakArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${SOAK_USAGE}\n${error.message}`);
    return EXIT.usage;
  }
  if (args === 'help') {
    console.log(SOAK_USAGE);
    return EXIT.expected;
  }
  const started = new Date();
  const id = soakReportId(started, args.seed);
  const reportDir = path.join(dataDir(), 'soak', id);
  try {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-soak-'));
    // PostgreSQL runs as its own user when this runs as root: it must reach its directory.
    await chmod(scratch, 0o755);
    cluster = await startEmbeddedPostgres({ dataDir: path.join(scratch, 'pg') });
    process.env.DATABASE_URL = cluster.url;
    await migrate(cluster.url);
    process.env.FENCING_LAB_LOCAL_WORKER_PASSWORD = await ensureLocalWorkerPassword(cluster.url);
    console.log(`soak ${id}: ${args.minutes} min of aimed chaos in every lab, seed ${args.seed}`);
    const soak = await runSoak({ id, ...args, reportDir, crashDatabase, say: (line) => console.log(line) });
    const t = soakTotals(soak);
    console.log(
      `${t.staleAttempts} stale writes attempted in ${t.minutes.toFixed(1)} min (${Math.round(t.staleAttempts / t.minutes)} a minute); in the fenced labs ${t.staleAcceptedFenced} accepted`,
    );
    console.log(`report: ${path.join(reportDir, 'report.md')} (and in the app: ${soakReportHref(id)})`);
    const ok = soakOk(soak);
    const notAsExpected = soak.labs.filter((l) => !l.judgement.ok).map((l) => `${l.lab} (${l.judgement.says})`);
    console.log(ok ? 'every lab as expected' : `NOT AS EXPECTED: ${notAsExpected.join('; ')}; see the report`);
    return ok ? EXIT.expected : EXIT.unexpected;
  } catch (error) {
    console.error(`the soak failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failed;
  } finally {
    await cleanUp();
  }
}

/** kill -9 of the postmaster, then a start on the same data directory and port (crash recovery runs). */
async function crashDatabase(): Promise<void> {
  if (!cluster || !scratch) throw new Error('no database to crash');
  await crashPostmaster(cluster);
  cluster = await startEmbeddedPostgres({ dataDir: path.join(scratch, 'pg'), preferredPort: cluster.port });
  if (cluster.url !== process.env.DATABASE_URL) {
    throw new Error('the database came back on another port: the workers could not find it');
  }
}

/** Workers first, then the pool, then the database and its directory. */
async function cleanUp(): Promise<void> {
  await getSupervisor().shutdown();
  await closePool();
  await cluster?.stop();
  cluster = undefined;
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
}

cleanUpOnInterrupt(cleanUp);

// The workers this command's supervisors start load a bundle, not the TypeScript (lib/os/worker-bundle.ts).
await startWorkersFromBundle(PROJECT_ROOT);
process.exitCode = await main(process.argv.slice(2));
