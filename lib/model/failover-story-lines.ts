import type { FailoverStep } from './failover-checker';

/*
 * One line of words per step of the failover story, for the scenario's output and the lab's
 * narration. Pure.
 */

export function describeFailoverStep(step: FailoverStep): string {
  switch (step.kind) {
    case 'pair_started':
      return `a primary and a streaming standby started (${step.mode === 'sync' ? 'synchronous' : 'asynchronous'} replication, through the lab's proxy)`;
    case 'grant':
      return `${step.holder} granted ${step.resource} with token ${step.token} (acknowledged by the ${step.server})`;
    case 'grant_waiting':
      return `${step.holder}'s grant waits: its COMMIT is not acknowledged until the standby has it (${step.waitedMs} ms so far, replication cut)`;
    case 'write':
      return step.accepted
        ? `${step.holder} writes "${step.value}" with token ${step.token} -> accepted (by the ${step.server})`
        : `${step.holder} writes "${step.value}" with token ${step.token} -> rejected (by the ${step.server}: row holds token ${step.rowToken})`;
    case 'replication_cut':
      return 'replication to the standby cut';
    case 'replication_healed':
      return 'replication healed: the standby receives the primary’s WAL again';
    case 'sequence_at_cut':
      return `at the cut the primary had handed out token ${step.primaryLastValue} and logged the sequence ${step.primaryLogCount} values ahead`;
    case 'sequence_before_kill': {
      const twice = BigInt(step.primaryLastValue) > BigInt(step.standbyCeiling);
      return `before the crash: the primary handed out up to ${step.primaryLastValue}, the standby's sequence covers up to ${step.standbyCeiling}: ${
        twice
          ? `tokens ${BigInt(step.standbyCeiling) + 1n} to ${step.primaryLastValue} can be handed out twice`
          : 'no token can be handed out twice'
      }`;
    }
    case 'primary_killed':
      return 'the primary is killed (SIGKILL)';
    case 'standby_promoted':
      return `the standby is promoted: its row holds "${step.row.value}" with token ${step.row.lastToken}, its lease is ${
        step.lease ? `${step.lease.holder}'s (token ${step.lease.token})` : 'free'
      }`;
  }
}
