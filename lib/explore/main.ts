import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { exploreGuardOnDatabase, exploreOnDatabase, type GuardExploration } from '../../db/explore';
import { closeLab, createPrivateLab } from '../../db/labs';
import { closePool } from '../../db/pool';
import { dropGuard, installGuard } from '../../db/your-guard';
import { COMMAND_EXIT, cleanUpOnInterrupt, commandDatabase, commandFailure } from '../launcher/command-database';
import type { EmbeddedCluster } from '../launcher/embedded-postgres';
import { isFencingError, UsageError } from '../model/core/errors';
import { type ExploreLab, exploreLabOf, failoverLab } from '../model/explore/explore-labs';
import type { ExploreBounds } from '../model/explore/story';
import { counterexampleWords, verdictSentence } from '../model/explore/verdict';
import { exploreSettings, settingsWords } from '../model/guard/guard-probes';
import { MAX_GUARD_CHARS } from '../model/guard/guard-statement';
import { parseGuard } from '../server/guard-parser';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { EXPLORE_USAGE, GUARD_LAB, parseExploreArgs } from './args';

/*
 * `npm run explore -- --lab <lab> [--holders N] [--writes N] [--depth N] [--renew | --sync] [--json]`: every
 * interleaving of the lab's story up to the bounds, each write run by the lab's real SQL in one transaction that is
 * rolled back (db/explore.ts; the failover lab's pair, asynchronous or with --sync, db/explore-failover.ts). `--guard file.sql` in place of --lab: a person's own guard statement,
 * in a private your-guard lab of its own (closed after), explored as the attack's exhaustive part is. Exit codes as `npm run scenario`'s: 0 holds, 1 breaks, 2 bad usage,
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
  const guardFile = args.guard;
  const lab =
    guardFile === undefined ? (args.sync ? failoverLab(args.lab, 'sync') : exploreLabOf(args.lab)) : undefined;
  if (lab && 'refusal' in lab) {
    console.error(`${EXPLORE_USAGE}\n${lab.refusal}`);
    return EXIT.usage;
  }
  let guard: Extract<Awaited<ReturnType<typeof parseGuard>>, { ok: true }> | undefined;
  if (guardFile !== undefined) {
    const text = await readGuardFile(guardFile);
    if (!text.ok) {
      console.error(`${EXPLORE_USAGE}\n${text.words}`);
      return EXIT.usage;
    }
    const parsed = await parseGuard(text.text);
    if (!parsed.ok) {
      console.error(`${guardFile} is not a guard the lab takes: ${parsed.reason}`);
      return EXIT.usage;
    }
    guard = parsed;
  }

  try {
    cluster = await commandDatabase();
    const bounds = {
      holders: args.holders,
      writes: args.writes,
      ...(args.depth === undefined ? {} : { depth: args.depth }),
      ...(args.renew ? { renew: true } : {}),
    };
    const explored =
      guard && guardFile !== undefined
        ? await exploreGuardFile(guard, bounds)
        : await exploreOnDatabase({ lab: lab as ExploreLab, bounds });
    if ('refused' in explored) {
      console.error(`${guardFile} is not a guard the lab takes: ${explored.refused}`);
      return EXIT.usage;
    }
    const { result, seconds } = explored;
    const title = guardFile === undefined ? (lab as ExploreLab).title : `Your guard (${guardFile})`;
    const tried = (explored as Partial<GuardExploration>).settings ?? [];
    const settings = tried.length > 1 ? tried : undefined;
    const holds = result.counts.broken === 0;
    const stepsPerSecond = seconds > 0 ? Math.round(result.counts.storageSteps / seconds) : undefined;
    if (args.json) {
      console.log(
        JSON.stringify({
          lab: lab?.kind ?? GUARD_LAB,
          ...(guard ? { guard: guard.statement } : {}),
          bounds,
          ...(lab?.write.table === 'fo_rows' ? { replication: lab.write.replication } : {}),
          holds,
          verdict: verdictSentence(title, result, seconds),
          ...(settings ? { alsoExplored: settingsWords(settings) } : {}),
          counts: result.counts,
          seconds,
          stepsPerSecond,
          ...(result.shortest ? { shortest: { ...result.shortest, words: counterexampleWords(result) } } : {}),
        }),
      );
    } else {
      console.log(verdictSentence(title, result, seconds).replace(/; the shortest has .*$/, '.'));
      if (settings)
        console.log(`Also explored: ${settingsWords(settings)} (the tokens and values the statement names).`);
      const split = lab?.write.table === 'unguarded_rows' && lab.write.mode === 'app-check';
      const ran = split
        ? `${plural(result.counts.storageSteps, 'statement')} (the lab's reads and writes)`
        : lab?.write.table === 'fo_rows'
          ? `${plural(result.counts.storageSteps, 'step')} (the lab's writes, the standby's catch-ups and promotions)`
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

/** A guard file as a person names it: at most a guard's length, read as UTF-8; or why it cannot be read. */
async function readGuardFile(file: string): Promise<{ ok: true; text: string } | { ok: false; words: string }> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return { ok: false, words: `--guard ${file}: not a file` };
    // Four bytes a character at most (UTF-8): a longer file cannot be a guard; the parser words one that is over in characters.
    if (info.size > MAX_GUARD_CHARS * 4)
      return { ok: false, words: `--guard ${file}: a guard is at most ${MAX_GUARD_CHARS} characters` };
    return { ok: true, text: await readFile(file, 'utf8') };
  } catch (error) {
    return {
      ok: false,
      words: `--guard ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    };
  }
}

/**
 * The statement in a private your-guard lab of its own, as a trainee's Install puts it there, explored
 * (also with the tokens and values it names), then the lab closed and its guard dropped.
 */
async function exploreGuardFile(
  guard: Extract<Awaited<ReturnType<typeof parseGuard>>, { ok: true }>,
  bounds: ExploreBounds,
): Promise<GuardExploration | { refused: string }> {
  const lab = await createPrivateLab({
    kind: GUARD_LAB,
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: 'npm run explore',
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: Number.MAX_SAFE_INTEGER,
    opensWindowMs: 1,
  });
  guardLab = lab.id;
  try {
    try {
      await installGuard(lab.id, guard.statement);
    } catch (error) {
      // PostgreSQL refused the statement (its words): bad usage of the command, not its failure.
      if (isFencingError(error, 'invalid_input')) return { refused: error.message };
      throw error;
    }
    return await exploreGuardOnDatabase({
      lab: lab.id,
      bounds,
      settings: exploreSettings(guard.constants, bounds.holders),
    });
  } finally {
    await closeGuardLab();
  }
}

/** The command's own your-guard lab, while it is open: closed on every way out, Ctrl-C included. */
let guardLab: string | undefined;

async function closeGuardLab(): Promise<void> {
  const lab = guardLab;
  guardLab = undefined;
  if (!lab) return;
  await dropGuard(lab).catch(() => undefined); // the close below ends the lab either way
  // A close that fails (the database gone) must not hide what went wrong before it: said, not thrown.
  await closeLab(lab).catch((error: unknown) =>
    console.error(
      `the lab ${lab} could not be closed (${error instanceof Error ? error.message : String(error)}): its idle close will`,
    ),
  );
}

/** The command's lab, the pool, then the database if this command started it. */
async function cleanUp(): Promise<void> {
  await closeGuardLab();
  await closePool();
  await cluster?.stop();
  cluster = undefined;
}

cleanUpOnInterrupt(cleanUp);

process.exitCode = await main(process.argv.slice(2));
