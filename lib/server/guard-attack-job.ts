import 'server-only';
import { z } from 'zod';
import { claimGuardAttempt, finishGuardAttempt } from '../../db/guard-queue';
import { findLab } from '../../db/labs';
import { installGuard } from '../../db/your-guard';
import { runGuardAttack } from '../chaos/guard-attack';
import { isFencingError } from '../model/core/errors';
import { toHistoryFile } from '../model/history/history-file';
import { labTitle } from '../model/lab/lab-instance';
import { parseGuard } from './guard-parser';
import { inLabOrder } from './lab-queue';
import { getPrivateLabs } from './private-labs';

/*
 * One guard attack, as a job any app server on the database runs (issue 24): claim the attempt (a run
 * token), install the guard (PostgreSQL may refuse it: a refusal), attack it with real workers, write the verdict only if this run
 * still holds the newest claim. A job run again after its server died claims anew; a run that finds
 * the verdict written does nothing. What stops an attack (the lab closed, the database gone) is the
 * attempt's verdict in words, not a silent retry.
 */

export const guardAttackPayload = z.object({ attempt: z.number().int().positive() }).strict();

/** The job's tries so far (this one included) and its bound: graphile-worker's. */
export type JobTries = { attempts: number; max_attempts: number };

/**
 * Thrown by a run whose claim was overtaken (its server was taken for dead, another claimed the attempt
 * since): graphile-worker then takes its failure path, which leaves a job locked by another server's
 * pool alone. Returning normally would complete it, which deletes the job whatever locks it, and the
 * newest run's attempt would be failed as abandoned.
 */
export class RunOvertaken extends Error {
  constructor(attempt: number) {
    super(`attempt ${attempt} was claimed by a newer run: this run's verdict is not written`);
  }
}

export async function runGuardAttackJob(payload: unknown, server: string, tries?: JobTries): Promise<void> {
  const { attempt: id } = guardAttackPayload.parse(payload);
  const claim = await claimGuardAttempt(id, server);
  // Its verdict is written: the job is done.
  if (!claim) return;
  const { attempt, runToken } = claim;
  const finish = async (result: Parameters<typeof finishGuardAttempt>[2]) => {
    if (!(await finishGuardAttempt(id, runToken, result))) throw new RunOvertaken(id);
  };
  const fail = (verdict: string) => finish({ outcome: 'failed', verdict });
  const lab = await findLab(attempt.lab);
  if (!lab || lab.closedAt) {
    await fail('the attack did not run: the lab was closed while the guard waited in line');
    return;
  }
  const parsed = await parseGuard(attempt.statement);
  if (!parsed.ok) {
    await fail(`the attack did not run: ${parsed.reason}`);
    return;
  }
  try {
    await inLabOrder(lab.id, async () => {
      getPrivateLabs().touch(lab.id);
      try {
        await installGuard(lab.id, parsed.statement);
      } catch (error) {
        if (!isFencingError(error) || error.code !== 'invalid_input') throw error;
        const closed = (await findLab(lab.id))?.closedAt;
        if (closed) await fail('the attack did not run: the lab was closed while the guard waited in line');
        else await finish({ outcome: 'refused', verdict: error.message });
        return;
      }
      const { verdict, events } = await runGuardAttack(lab, parsed.constants);
      const shown = new Set(verdict.counterexample);
      const history = verdict.passed
        ? undefined
        : toHistoryFile({
            lab: { id: lab.id, kind: lab.kind, title: `${labTitle(lab)}: ${attempt.name}'s guard` },
            events: events.filter((event) => shown.has(event.id)),
            exportedAt: new Date(),
          });
      await finish({
        outcome: verdict.passed ? 'passed' : 'violation',
        verdict: verdict.headline,
        ...(verdict.detail ? { detail: verdict.detail } : {}),
        ...(verdict.rule ? { rule: verdict.rule } : {}),
        ...(history ? { history } : {}),
      });
    });
  } catch (error) {
    if (error instanceof RunOvertaken) throw error;
    // A refusal in words is the verdict; anything else (a step that timed out on a starved machine,
    // the database away) is tried again, and said in words once the tries are spent.
    const message = error instanceof Error ? error.message : String(error);
    const retried = !isFencingError(error) || isFencingError(error, 'db_unavailable');
    if (retried && tries && tries.attempts < tries.max_attempts) throw error;
    await fail(`the attack could not finish${tries && retried ? ` (tried ${tries.attempts} times)` : ''}: ${message}`);
  }
}
