import type { Facts, Step } from '../walkthrough/walkthrough';

/*
 * The question the trainer is offered before a walkthrough step runs, from the story so far: the
 * tokens the database really gave are in it once they are recorded. Keyed by the step's id, which
 * the stories share (walkthrough-pause.ts, -drifting-clock.ts, -delayed-packet.ts).
 */

export type SuggestedPoll = { question: string; choices: string[] };

const YES_NO = ['Yes', 'No'];

/** The question to ask before `step` runs, or undefined when the step has none (the trainer types one). */
export function suggestedPoll(step: Pick<Step, 'id'>, facts: Facts): SuggestedPoll | undefined {
  // The token A's late write will carry (the one it believed in when it froze, or sent under), and what the
  // row holds when the question is asked: B's token only if B's write was accepted (the row never held a refused one).
  const tokenA = facts.beliefTokenA ?? facts.sentLateA?.token ?? facts.tokenA;
  const rowToken = (facts.writes ?? []).findLast((e) => e.kind === 'write_accepted')?.token;
  const aOld = tokenA === undefined ? '' : `, with its token ${tokenA},`;
  const overB =
    facts.writeB?.kind === 'write_accepted' && rowToken === facts.writeB.token
      ? ` over B's token ${rowToken}`
      : rowToken === undefined
        ? ''
        : ` over the row's token ${rowToken}`;
  switch (step.id) {
    case 'a-writes':
      return { question: "Will A's first write be accepted?", choices: YES_NO };
    case 'both-start':
      return { question: 'Will B write while A holds the lease?', choices: YES_NO };
    case 'a-freezes':
      return { question: 'While A is frozen, will it renew its lease?', choices: YES_NO };
    case 'write-held':
      return { question: "While the network holds A's write, will A's lease run out?", choices: YES_NO };
    case 'a-expires':
      return { question: 'When its lease runs out, will A know?', choices: YES_NO };
    case 'b-takes-over':
      return {
        question: `Will B's token be newer than A's${facts.tokenA === undefined ? '' : ` (${facts.tokenA})`}?`,
        choices: YES_NO,
      };
    case 'a-wakes':
      return { question: `Will A's late write${aOld} be accepted${overB}?`, choices: YES_NO };
    case 'held-write-arrives':
      return { question: `Will A's held write${aOld} be accepted when it arrives${overB}?`, choices: YES_NO };
    case 'a-writes-late':
      return { question: `A's clock says its lease still runs: will its write${aOld} be accepted?`, choices: YES_NO };
    case 'the-row':
      return { question: 'Whose value will the row hold in the end?', choices: ["A's", "B's"] };
    default:
      return undefined;
  }
}
