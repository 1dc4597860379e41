import 'server-only';
import { type GuardAttempt, latestGuardAttempt, recordGuardAttempt, recordRefusedGuard } from '../../db/guard-attempts';
import { installGuard } from '../../db/your-guard';
import { runGuardAttack } from '../chaos/guard-attack';
import { takesTraineeGuard } from '../labs/traits';
import { FencingError, isFencingError } from '../model/errors';
import { type GuardResult, type LastGuard, lastGuardInput, submitGuardInput } from '../model/guard-inputs';
import { toHistoryFile } from '../model/history-file';
import { labTitle } from '../model/lab-instance';
import { type Credentials, requireDriver } from './access';
import { getGuardAttackSlots } from './guard-attack-slots';
import { parseGuard } from './guard-parser';
import { labFor } from './lab-commands';
import { inLabOrder } from './lab-queue';
import { getPrivateLabs } from './private-labs';
import { validatedAction } from './validated-action';

/*
 * A trainee submits a guard in their your-guard lab: PostgreSQL's parser and the guard rules first
 * (a refusal is recorded, and nothing runs), then the install (PostgreSQL may refuse it too), then the
 * attack with real workers. Every submission is an attempt on the class wall.
 */
export const submitGuard = (raw: unknown, credentials: Credentials, address = 'unknown') =>
  validatedAction(submitGuardInput, async ({ lab: id, name, statement: text }) => {
    const yourGuardLab = async () => {
      const lab = await labFor(id, credentials);
      requireDriver(lab, credentials);
      if (!takesTraineeGuard(lab.kind)) throw new FencingError('invalid_input', 'only a your-guard lab takes a guard');
      return lab;
    };
    // Who may submit here is settled before anything reads the statement.
    const ownerHash = (await yourGuardLab()).ownerHash as string;
    // A guard the parser accepts takes one of the server's attack slots (lib/server/guard-attack-slots.ts)
    // before it queues: one running per owner, never all of them for one address, a few a minute, a
    // bound for the machine. A refused one costs no worker, but is stored: it is counted too.
    const parsed = await parseGuard(text);
    const slots = getGuardAttackSlots();
    if (!parsed.ok) slots.takeRefusal(ownerHash, address);
    const slot = parsed.ok ? slots.take(ownerHash, address) : undefined;
    try {
      return await inLabOrder(id, async (): Promise<GuardResult> => {
        const lab = await yourGuardLab();
        getPrivateLabs().touch(lab.id);
        const owner = { lab: lab.id, ownerHash: lab.ownerHash as string, name };
        const refused = async (reason: string, statement: string): Promise<GuardResult> => {
          // The same statement refused again is the same attempt: kept once.
          const attempt = await recordRefusedGuard({ ...owner, statement, verdict: reason });
          return {
            attemptId: attempt.id,
            outcome: 'refused',
            headline: reason,
            statement: attempt.statement,
            hasCounterexample: false,
          };
        };
        if (!parsed.ok) return refused(`refused before it ran: ${parsed.reason}`, text);
        try {
          await installGuard(lab.id, parsed.statement);
        } catch (error) {
          if (isFencingError(error) && error.code === 'invalid_input') return refused(error.message, parsed.statement);
          throw error;
        }
        const { verdict, events } = await runGuardAttack(lab, parsed.constants);
        const shown = new Set(verdict.counterexample);
        const history = verdict.passed
          ? undefined
          : toHistoryFile({
              lab: { id: lab.id, kind: lab.kind, title: `${labTitle(lab)}: ${name}'s guard` },
              events: events.filter((event) => shown.has(event.id)),
              exportedAt: new Date(),
            });
        const attempt = await recordGuardAttempt({
          ...owner,
          statement: parsed.statement,
          outcome: verdict.passed ? 'passed' : 'violation',
          ...(verdict.rule ? { rule: verdict.rule } : {}),
          verdict: verdict.headline,
          ...(history ? { history } : {}),
        });
        return {
          attemptId: attempt.id,
          outcome: attempt.outcome,
          headline: verdict.headline,
          ...(verdict.detail ? { detail: verdict.detail } : {}),
          statement: parsed.statement,
          hasCounterexample: history !== undefined,
        };
      });
    } finally {
      slot?.release();
    }
  })(raw);

/** An attempt as its editor shows it again: the verdict kept with it. */
function resultOf(attempt: GuardAttempt): GuardResult {
  return {
    attemptId: attempt.id,
    outcome: attempt.outcome,
    headline: attempt.verdict,
    statement: attempt.statement,
    hasCounterexample: attempt.hasCounterexample,
  };
}

/**
 * The editor's start in a your-guard lab: its owner's last name and statement there, that attempt's
 * verdict, and how the guard the row has now fared. Only the lab's owner: the same check as a submission.
 */
export const lastGuard = (raw: unknown, credentials: Credentials) =>
  validatedAction(lastGuardInput, async ({ lab: id }): Promise<LastGuard> => {
    const lab = await labFor(id, credentials);
    requireDriver(lab, credentials);
    if (!takesTraineeGuard(lab.kind) || !lab.ownerHash) return { standing: 'none' };
    const owner = { lab: lab.id, ownerHash: lab.ownerHash };
    const attempt = await latestGuardAttempt(owner);
    const attacked = attempt?.outcome === 'refused' ? await latestGuardAttempt({ ...owner, attacked: true }) : attempt;
    const standing = attacked?.outcome === 'passed' || attacked?.outcome === 'violation' ? attacked.outcome : 'none';
    return {
      ...(attempt ? { last: { name: attempt.name, statement: attempt.statement, result: resultOf(attempt) } } : {}),
      standing,
    };
  })(raw);
