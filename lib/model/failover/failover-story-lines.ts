import type { FailoverStep } from './failover-steps';

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
      return step.sequence
        ? `replication to the standby cut: at the cut the primary had handed out token ${step.sequence.primaryLastValue} and logged the sequence ${step.sequence.primaryLogCount} values ahead`
        : 'replication to the standby cut';
    case 'replication_healed':
      return 'replication healed: the standby receives the primary’s WAL again';
    case 'primary_killed': {
      const seq = step.sequence;
      if (!seq) return 'the primary is killed (SIGKILL)';
      const twice = BigInt(seq.primaryLastValue) > BigInt(seq.standbyCeiling);
      return `the primary is killed (SIGKILL); it had handed out up to ${seq.primaryLastValue}, the standby's sequence covers up to ${seq.standbyCeiling}: ${
        twice
          ? `tokens ${BigInt(seq.standbyCeiling) + 1n} to ${seq.primaryLastValue} can be handed out twice`
          : 'no token can be handed out twice'
      }`;
    }
    case 'pair_stopped':
      return 'the pair stopped: its servers and directories are gone, this history stays';
    case 'standby_promoted':
      return `the standby is promoted: its row holds "${step.row.value}" with token ${step.row.lastToken}, its lease is ${
        step.lease ? `${step.lease.holder}'s (token ${step.lease.token})` : 'free'
      }`;
  }
}
