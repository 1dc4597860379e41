import path from 'node:path';
import { migrate } from '../../db/migrate';
import { closePool, toFencingError } from '../../db/pool';
import { getSupervisor } from '../lab/supervisor';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../launcher/embedded-postgres';
import { dataDir, EMBEDDED_PG_PREFERRED_PORT } from '../launcher/paths';
import { isFencingError } from '../model/errors';
import { LAB_IDS, type LabId } from '../model/labs';
import { LabInUseError, runPauseScenario } from './pause';
import { jsonPrinter, textPrinter } from './story';

/*
 * `npm run scenario -- <name> [--json]`, with real worker processes. Exit codes: 0 safe outcome,
 * 1 unsafe outcome (what every broken lab should show), 2 bad usage, 3 no database reachable,
 * 4 any other failure, 5 the lab is in use by another process (a running app), 130 interrupted.
 */

// `pause` is the fenced lab's scenario; every other name is a broken lab's.
const SCENARIOS: ReadonlyMap<string, LabId> = new Map([
  ['pause', 'fenced'],
  ...LAB_IDS.filter((lab) => lab !== 'fenced').map((lab) => [lab, lab] as const),
]);
const EXIT = { safe: 0, unsafe: 1, usage: 2, noDatabase: 3, failed: 4, inUse: 5, interrupted: 130 } as const;

let cluster: EmbeddedCluster | undefined;

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const unknownFlags = argv.filter((arg) => arg.startsWith('-') && arg !== '--json');
  const [name, ...extra] = argv.filter((arg) => !arg.startsWith('-'));
  const lab = name === undefined ? undefined : SCENARIOS.get(name);
  if (!lab || extra.length || unknownFlags.length) {
    console.error(
      `usage: npm run scenario -- <${[...SCENARIOS.keys()].join('|')}> [--json]` +
        (name && !lab ? `\nunknown scenario ${JSON.stringify(name)}` : '') +
        (unknownFlags.length ? `\nunknown option ${unknownFlags.join(' ')}` : ''),
    );
    return EXIT.usage;
  }
  const write = (text: string) => console.log(text);
  const print = json ? jsonPrinter(write) : textPrinter(write);

  try {
    if (!process.env.DATABASE_URL) {
      // The same embedded database `npm start` uses: shared if it is running, started otherwise.
      cluster = await startEmbeddedPostgres({
        dataDir: path.join(dataDir(), 'pg'),
        preferredPort: EMBEDDED_PG_PREFERRED_PORT,
      });
      process.env.DATABASE_URL = cluster.url;
    }
    await migrate();
    const outcome = await runPauseScenario(lab, print);
    return outcome.safe ? EXIT.safe : EXIT.unsafe;
  } catch (error) {
    const failure = toFencingError(error);
    if (isFencingError(failure, 'db_unavailable')) {
      console.error(
        `${failure.message}\nSet DATABASE_URL to a reachable PostgreSQL, or unset it to use the embedded one.`,
      );
      return EXIT.noDatabase;
    }
    if (error instanceof LabInUseError) {
      console.error(error.message);
      return EXIT.inUse;
    }
    console.error(`scenario failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failed;
  } finally {
    await cleanUp();
  }
}

/** Workers first, then the pool, then the database if this command started it. */
async function cleanUp(): Promise<void> {
  await getSupervisor().shutdown();
  await closePool();
  await cluster?.stop();
  cluster = undefined;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(EXIT.interrupted));
  });
}

process.exitCode = await main(process.argv.slice(2));
