import { closedInWords } from '@/lib/model/lab/lab-closed-words';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { OpenPrivateLab } from '../access/open-private-lab';
import { TrainerUnlock } from '../access/trainer-unlock';
import { useLabStore } from './lab-store-provider';

/** What a watcher sees instead of the controls: why they are read-only, and the ways to drive. */
export function ReadOnlyPanel({ lab, walkthrough = false }: { lab: LabSummary; walkthrough?: boolean }) {
  const closed = useLabStore((state) => (lab.closed ? closedInWords(state.events) : undefined));
  return (
    <section
      aria-labelledby="read-only-heading"
      data-testid="read-only"
      className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-800 dark:bg-amber-950"
    >
      <h2 id="read-only-heading" className="text-lg font-semibold">
        Watching: read-only
      </h2>
      {lab.closed ? (
        <p>{closed} Its history stays: replay it, export it, or open a new lab.</p>
      ) : (
        <p>
          You see this lab live, as everyone in the room does. Only the trainer drives it
          {walkthrough ? ', so the walkthrough here follows what the trainer does' : ''}.
        </p>
      )}
      {!lab.closed && lab.visibility === 'shared' ? <TrainerUnlock /> : null}
      <div className="space-y-1">
        <p className="text-sm">Or drive a lab of your own, which nobody else sees:</p>
        <OpenPrivateLab initialKind={lab.kind} walkthrough={walkthrough} />
      </div>
    </section>
  );
}
