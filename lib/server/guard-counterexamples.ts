import 'server-only';
import { findGuardAttempt, readGuardCounterexample } from '../../db/guard-attempts';
import { guardAttemptIdSchema } from '../model/guard/guard-inputs';
import { counterexampleWithStatement } from '../model/guard/guard-replay';
import { type HistoryFile, parseHistoryFile } from '../model/history/history-file';
import { type Credentials, isTrainer, ownerHashOf } from './access';

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
  return {
    file: counterexampleWithStatement(parsed.file, attempt.statement),
    fileName: `attempt ${attempt.id} (${attempt.name}'s guard)`,
    statement: attempt.statement,
    verdict: attempt.verdict,
  };
}
