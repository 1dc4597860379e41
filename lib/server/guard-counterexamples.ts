import 'server-only';
import { findGuardAttempt, readGuardCounterexample } from '../../db/guard-attempts';
import { counterexampleName, traineeLabel } from '../model/guard/class-wall';
import { guardAttemptIdSchema } from '../model/guard/guard-inputs';
import { counterexampleWithStatement } from '../model/guard/guard-replay';
import { type HistoryFile, parseHistoryFile } from '../model/history/history-file';
import { type Credentials, isTrainer, ownerHashOf, traineeKeyOf } from './access';

/**
 * A guard attempt's counterexample, for /replay?attempt=…: to the trainee who made the attempt, and
 * to the trainer (the class wall's projector link). Anyone else, or a bad id, gets nothing. Its
 * writes say the statement that ran: the attempt's own, which the page shows above it with its verdict.
 */
export async function counterexampleFor(
  rawId: unknown,
  credentials: Credentials,
): Promise<{ file: HistoryFile; fileName: string; statement: string; verdict: string } | undefined> {
  const id = guardAttemptIdSchema.safeParse(rawId);
  if (!id.success) return undefined;
  const attempt = await findGuardAttempt(id.data);
  if (!attempt?.hasCounterexample) return undefined;
  const mine = credentials.ownerSecret !== undefined && ownerHashOf(credentials.ownerSecret) === attempt.ownerHash;
  if (!mine && !isTrainer(credentials)) return undefined;
  const parsed = parseHistoryFile(JSON.stringify(await readGuardCounterexample(id.data)));
  if (!parsed.ok) return undefined;
  const who = { id: attempt.id, name: attempt.name, trainee: traineeKeyOf(attempt.ownerHash) };
  const file = counterexampleWithStatement(parsed.file, attempt.statement);
  // The file's title was written at the attack with the name alone ("Your guard: Sam's guard"): the
  // page names the trainee as the wall does, so that two Sams are told apart here too.
  const kindTitle = file.lab.title.split(': ')[0] ?? file.lab.title;
  return {
    file: { ...file, lab: { ...file.lab, title: `${kindTitle}: the guard of ${traineeLabel(who)}` } },
    fileName: counterexampleName(who),
    statement: attempt.statement,
    verdict: attempt.verdict,
  };
}
