/*
 * The failover lab's story as steps (what each client was told, and what each server holds), and
 * the checker that judges them by what was acknowledged. Pure: the node test, the scenario and the
 * page judge the same steps the same way. Tokens are decimal strings, compared as BigInt.
 */

export type FailoverServerRole = 'primary' | 'promoted standby';

export type FailoverStep =
  | { kind: 'pair_started'; mode: 'async' | 'sync' }
  | { kind: 'grant'; holder: string; resource: string; token: string; server: FailoverServerRole }
  | { kind: 'grant_waiting'; holder: string; waitedMs: number }
  | {
      kind: 'write';
      holder: string;
      token: string;
      value: string;
      server: FailoverServerRole;
      accepted: boolean;
      /** The row's token when the write was rejected. */
      rowToken?: string;
    }
  | { kind: 'replication_cut' }
  | { kind: 'replication_healed' }
  | {
      kind: 'sequence_at_cut';
      /** The last token the primary handed out, and how many more before it logs the sequence again. */
      primaryLastValue: string;
      primaryLogCount: number;
    }
  | {
      kind: 'sequence_before_kill';
      primaryLastValue: string;
      /** The value the standby's last replayed sequence record covers: promoted, it goes on above it. */
      standbyCeiling: string;
    }
  | { kind: 'primary_killed' }
  | {
      kind: 'standby_promoted';
      row: { value: string; lastToken: string };
      lease: { resource: string; holder: string; token: string } | undefined;
    };

export type FailoverViolationKind = 'acknowledged-write-lost' | 'token-granted-twice' | 'stale-write-accepted';

export type FailoverViolation = { kind: FailoverViolationKind; message: string };

const big = (token: string) => BigInt(token);

export function checkFailover(steps: FailoverStep[]): FailoverViolation[] {
  const violations: FailoverViolation[] = [];
  const grantsByToken = new Map<string, Extract<FailoverStep, { kind: 'grant' }>>();
  const lastGrantByResource = new Map<string, Extract<FailoverStep, { kind: 'grant' }>>();
  let newestAccepted: Extract<FailoverStep, { kind: 'write' }> | undefined;

  for (const step of steps) {
    if (step.kind === 'grant') {
      const earlier = grantsByToken.get(step.token);
      if (earlier) {
        violations.push({
          kind: 'token-granted-twice',
          message: `token granted twice: ${step.token} to ${earlier.holder} (${earlier.resource}) by the ${earlier.server}, and again to ${step.holder} (${step.resource}) by the ${step.server}`,
        });
      } else {
        grantsByToken.set(step.token, step);
      }
      lastGrantByResource.set(step.resource, step);
    } else if (step.kind === 'write' && step.accepted) {
      if (newestAccepted && big(step.token) < big(newestAccepted.token)) {
        violations.push({
          kind: 'stale-write-accepted',
          message: `stale write accepted: ${step.holder} wrote "${step.value}" with token ${step.token} on the ${step.server}, after ${newestAccepted.holder}'s write "${newestAccepted.value}" with the newer token ${newestAccepted.token} had been acknowledged`,
        });
      }
      if (!newestAccepted || big(step.token) >= big(newestAccepted.token)) newestAccepted = step;
    } else if (step.kind === 'standby_promoted') {
      if (newestAccepted && big(step.row.lastToken) < big(newestAccepted.token)) {
        violations.push({
          kind: 'acknowledged-write-lost',
          message: `acknowledged write lost: ${newestAccepted.holder}'s write "${newestAccepted.value}" (token ${newestAccepted.token}), acknowledged by the ${newestAccepted.server}, is not on the promoted standby: its row holds "${step.row.value}" with token ${step.row.lastToken}`,
        });
      }
      if (step.lease) {
        const granted = lastGrantByResource.get(step.lease.resource);
        if (granted && big(step.lease.token) < big(granted.token)) {
          violations.push({
            kind: 'acknowledged-write-lost',
            message: `acknowledged grant lost: ${granted.holder}'s lease of ${granted.resource} (token ${granted.token}), acknowledged by the ${granted.server}, is not on the promoted standby: its lease is ${step.lease.holder}'s, token ${step.lease.token}`,
          });
        }
      }
      // A lost write stays the newest acknowledged one: a later write below its token is stale all the same.
    }
  }
  return violations;
}
