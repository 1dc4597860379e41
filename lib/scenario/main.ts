import path from 'node:path';
import { migrate } from '../../db/migrate';
import { closePool, newClient, toFencingError } from '../../db/pool';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../launcher/embedded-postgres';
import { dataDir, EMBEDDED_PG_PREFERRED_PORT } from '../launcher/paths';
import { isFencingError } from '../model/errors';
import { runPauseScenario } from './pause';
import { jsonPrinter, textPrinter } from './story';

/*
 * `npm run scenario -- <name> [--json]`. Exit codes: 0 safe outcome, 1 unsafe outcome,
 * 2 bad usage, 3 no database reachable, 4 any other failure.
 */

const SCENARIOS = ['pause'] as const;
const EXIT = { safe: 0, unsafe: 1, usage: 2, noDatabase: 3, failed: 4 } as const;

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const unknownFlags = argv.filter((arg) => arg.startsWith('-') && arg !== '--json');
  const [name, ...extra] = argv.filter((arg) => !arg.startsWith('-'));
  if (!name || extra.length || unknownFlags.length || !SCENARIOS.includes(name as (typeof SCENARIOS)[number])) {
    console.error(
      `usage: npm run scenario -- <${SCENARIOS.join('|')}> [--json]` +
        (name && !SCENARIOS.includes(name as never) ? `\nunknown scenario ${JSON.stringify(name)}` : '') +
        (unknownFlags.length ? `\nunknown option ${unknownFlags.join(' ')}` : ''),
    );
    return EXIT.usage;
  }
  const write = (text: string) => console.log(text);
  const print = json ? jsonPrinter(write) : textPrinter(write);

  let cluster: EmbeddedCluster | undefined;
  const sessions = { a: newClientForUrl(), b: newClientForUrl() };
  try {
    if (!process.env.DATABASE_URL) {
      // The same embedded database `npm start` uses: shared if it is running, started otherwise.
      cluster = await startEmbeddedPostgres({
        dataDir: path.join(dataDir(), 'pg'),
        preferredPort: EMBEDDED_PG_PREFERRED_PORT,
      });
      process.env.DATABASE_URL = cluster.url;
      sessions.a = newClientForUrl();
      sessions.b = newClientForUrl();
    }
    await migrate();
    await Promise.all([sessions.a.connect(), sessions.b.connect()]);
    const outcome = await runPauseScenario(sessions, print);
    return outcome.safe ? EXIT.safe : EXIT.unsafe;
  } catch (error) {
    const failure = toFencingError(error);
    if (isFencingError(failure, 'db_unavailable')) {
      console.error(
        `${failure.message}\nSet DATABASE_URL to a reachable PostgreSQL, or unset it to use the embedded one.`,
      );
      return EXIT.noDatabase;
    }
    console.error(`scenario failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failed;
  } finally {
    await Promise.all([sessions.a.end().catch(() => undefined), sessions.b.end().catch(() => undefined)]);
    await closePool();
    await cluster?.stop();
  }
}

function newClientForUrl() {
  return newClient(process.env.DATABASE_URL ?? 'postgres://unset');
}

process.exitCode = await main(process.argv.slice(2));
