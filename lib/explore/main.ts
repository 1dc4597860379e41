import { exploreOnDatabase } from '../../db/explore';
import { closePool } from '../../db/pool';
import { COMMAND_EXIT, cleanUpOnInterrupt, commandDatabase, commandFailure } from '../launcher/command-database';
import type { EmbeddedCluster } from '../launcher/embedded-postgres';
import { UsageError } from '../model/core/errors';
import { exploreLabOf } from '../model/explore/explore-labs';
import { counterexampleWords, verdictSentence } from '../model/explore/verdict';
import { EXPLORE_USAGE, parseExploreArgs } from './args';

/*
 * `npm run explore -- --lab <lab> [--holders N] [--writes N] [--depth N] [--json]`: every interleaving
 * of the lab's story up to the bounds, each write run by the lab's real SQL in one transaction that is
 * rolled back (db/explore.ts). Exit codes as `npm run scenario`'s: 0 holds, 1 breaks, 2 bad usage,
 * 3 no database reachable, 4 any other failure, 130 interrupted. Without DATABASE_URL it starts the
 * embedded database the way `npm run scenario` does (lib/launcher/command-database.ts).
 */

const plural = (n: number, one: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : `${one}s`}`;

const EXIT = { holds: 0, help: 0, breaks: 1, ...COMMAND_EXIT } as const;

let cluster: EmbeddedCluster | undefined;

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseExploreArgs>;
  try {
    args = parseExploreArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${EXPLORE_USAGE}\n${error.message}`);
    return EXIT.usage;
  }
  if (args === 'help') {
    console.log(EXPLORE_USAGE);
    return EXIT.help;
  }
  const lab = exploreLabOf(args.lab);
  if ('refusal' in lab) {
    console.error(`${EXPLORE_USAGE}\n${lab.refusal}`);
    return EXIT.usage;
  }

  try {
    cluster = await commandDatabase();
    const bounds = {
      holders: args.holders,
      writes: args.writes,
      ...(args.depth === undefined ? {} : { depth: args.depth }),
    };
    const { result, seconds } = await exploreOnDatabase({ lab, bounds });
    const holds = result.counts.broken === 0;
    const stepsPerSecond = seconds > 0 ? Math.round(result.counts.storageSteps / seconds) : undefined;
    if (args.json) {
      console.log(
        JSON.stringify({
          lab: lab.kind,
          bounds,
          holds,
          verdict: verdictSentence(lab.title, result, seconds),
          counts: result.counts,
          seconds,
          stepsPerSecond,
          ...(result.shortest ? { shortest: { ...result.shortest, words: counterexampleWords(result) } } : {}),
        }),
      );
    } else {
      console.log(verdictSentence(lab.title, result, seconds).replace(/; the shortest has .*$/, '.'));
      const split = lab.write.table === 'unguarded_rows' && lab.write.mode === 'app-check';
      const ran = split
        ? `${plural(result.counts.storageSteps, 'statement')} (the lab's reads and writes)`
        : plural(result.counts.storageSteps, 'write');
      console.log(
        `${ran} run on the database (${stepsPerSecond?.toLocaleString('en-US') ?? '?'} a second), ${plural(result.counts.duplicates, 'state')} reached again and not explored again; nothing committed.`,
      );
      if (result.shortest) {
        console.log(`The shortest interleaving that breaks it, ${result.shortest.steps.length} steps:`);
        for (const [i, words] of counterexampleWords(result).entries()) console.log(`  ${i + 1}. ${words}`);
        console.log(`The checker: ${result.shortest.violation.message}`);
      }
    }
    return holds ? EXIT.holds : EXIT.breaks;
  } catch (error) {
    const failed = commandFailure('explore', error);
    console.error(failed.words);
    return failed.code;
  } finally {
    await cleanUp();
  }
}

/** The pool, then the database if this command started it. */
async function cleanUp(): Promise<void> {
  await closePool();
  await cluster?.stop();
  cluster = undefined;
}

cleanUpOnInterrupt(cleanUp);

process.exitCode = await main(process.argv.slice(2));
