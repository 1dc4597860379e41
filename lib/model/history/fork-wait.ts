/*
 * A what-if fork whose story waits in the room's job queue (issue 24): its page would show an empty
 * timeline, as if nothing were coming, until a server takes the job. These are the words for that
 * wait, from what the queue said when the page asked (db/what-if-jobs.ts); once a server runs the
 * story there are none: the timeline speaks. Pure.
 */

/** What the queue said of a fork's job that no server has taken. */
export type ForkWait = {
  /** Jobs waiting that a server takes before it (guard attacks, forks, sweep runs). */
  ahead: number;
  /** Whether any app server on the database is taking jobs now (its beat is recent). */
  serversUp: boolean;
};

/** "Waiting in line: a server will run this fork's story as soon as one has a free slot", and its variants. */
export function forkWaitWords(wait: ForkWait): string {
  if (!wait.serversUp) {
    return "Waiting in line: no app server is taking jobs right now; this fork's story runs once one is";
  }
  if (wait.ahead === 0) return "Waiting in line: a server will run this fork's story as soon as one has a free slot";
  const jobs = wait.ahead === 1 ? '1 other job' : `${wait.ahead} other jobs`;
  const after = wait.ahead === 1 ? 'it' : 'them';
  return `Waiting in line behind ${jobs} (guard attacks, forks, sweep runs): a server will run this fork's story after ${after}`;
}
