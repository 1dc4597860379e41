import { RefreshWhileShown } from './refresh-while-shown';

/** How often a waiting fork's page asks again: a server takes a job within about a second of a free slot. */
const ASK_AGAIN_MS = 2_000;

/**
 * A what-if fork whose story waits in the room's queue: the words the server read from the job rows
 * (lib/server/what-if.ts forkWaitingWords), asked again until a server runs it and they are gone.
 */
export function ForkWaiting({ words }: { words: string }) {
  return (
    <p
      role="status"
      data-testid="fork-waiting"
      className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-base dark:border-amber-800 dark:bg-amber-950"
    >
      {words}
      <RefreshWhileShown everyMs={ASK_AGAIN_MS} />
    </p>
  );
}
