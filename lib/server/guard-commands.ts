import 'server-only';
import { findGuardAttempt, type GuardAttempt, latestGuardAttempt, recordRefusedGuard } from '../../db/guard-attempts';
import { enqueueGuardAttack, queueFacts } from '../../db/guard-queue';
import { takesTraineeGuard } from '../labs/traits';
import { FencingError } from '../model/core/errors';
import {
  type GuardResult,
  guardAttemptInput,
  type LastGuard,
  lastGuardInput,
  submitGuardInput,
} from '../model/guard/guard-inputs';
import { queuePlace, queueWords } from '../model/guard/guard-queue';
import { type Credentials, requireDriver } from './access';
import { guardShares } from './guard-attack-slots';
import { parseGuard } from './guard-parser';
import { labFor } from './lab-commands';
import { inLabOrder } from './lab-queue';
import { getPrivateLabs } from './private-labs';
import { validatedAction } from './validated-action';

/*
 * A trainee submits a guard in their your-guard lab: PostgreSQL's parser and the guard rules first
 * (a refusal is recorded, and nothing runs), then it joins the room's line of guard attacks, a job any
 * app server on the database runs (lib/server/guard-attack-job.ts: the install, where PostgreSQL may
 * refuse it too, then the attack with real workers). The answer is its place in line; the editor asks
 * after it (guardAttempt) until its verdict is in. Every submission is an attempt on the class wall.
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
    await yourGuardLab();
    // Submissions are counted per owner and per address by the database, for the whole room, in the
    // statement that stores them (lib/server/guard-attack-slots.ts); a refused one costs no worker, but
    // is stored for the wall: counted too. How many attacks run at once is the job queue's business
    // (lib/server/job-runner.ts).
    const parsed = await parseGuard(text);
    const shares = guardShares();
    return inLabOrder(id, async (): Promise<GuardResult> => {
      const lab = await yourGuardLab();
      getPrivateLabs().touch(lab.id);
      const owner = { lab: lab.id, ownerHash: lab.ownerHash as string, name };
      if (!parsed.ok) {
        // The same statement refused again is the same attempt: kept once.
        return resultOf(
          await recordRefusedGuard({
            ...owner,
            statement: text,
            verdict: `refused before it ran: ${parsed.reason}`,
            sentBy: { address, share: shares.refusals },
          }),
        );
      }
      // The guard is installed by the job that attacks it: the guard attacked is always the one in line.
      // Every app server's runner takes it (instrumentation.ts starts this server's).
      const attempt = await enqueueGuardAttack({
        ...owner,
        statement: parsed.statement,
        sentBy: { address, share: shares.attacks },
      });
      return resultWithPlace(attempt);
    });
  })(raw);

/** An attempt as its editor shows it again: the verdict kept with it. */
function resultOf(attempt: GuardAttempt): GuardResult {
  return {
    attemptId: attempt.id,
    outcome: attempt.outcome,
    headline: attempt.verdict,
    ...(attempt.detail ? { detail: attempt.detail } : {}),
    statement: attempt.statement,
    hasCounterexample: attempt.hasCounterexample,
  };
}

/** An attempt as its editor shows it now: a queued one with its place in line and estimate, read from the queue. */
async function resultWithPlace(attempt: GuardAttempt): Promise<GuardResult> {
  if (attempt.outcome !== 'queued') return resultOf(attempt);
  const facts = (await queueFacts([attempt.id])).get(attempt.id);
  if (!facts) {
    // Its verdict was written between the two reads: read it.
    const now = await findGuardAttempt(attempt.id);
    return now ? resultOf(now) : resultOf(attempt);
  }
  const queue = queuePlace(facts);
  return { ...resultOf(attempt), headline: queueWords(queue, facts.slots > 0), queue };
}

/**
 * A submitted guard while its editor waits: its place in line and estimate, then its verdict. Only the
 * lab's owner, and only an attempt of that lab.
 */
export const guardAttempt = (raw: unknown, credentials: Credentials) =>
  validatedAction(guardAttemptInput, async ({ lab: id, attempt: attemptId }): Promise<GuardResult> => {
    const lab = await labFor(id, credentials);
    requireDriver(lab, credentials);
    const attempt = await findGuardAttempt(attemptId);
    if (!attempt || attempt.lab !== lab.id || attempt.ownerHash !== lab.ownerHash) {
      throw new FencingError('invalid_input', `no attempt ${attemptId} in this lab`);
    }
    return resultWithPlace(attempt);
  })(raw);

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
