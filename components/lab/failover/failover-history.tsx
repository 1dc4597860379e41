import { checkFailover, type FailoverStep } from '@/lib/model/failover-checker';
import { describeFailoverStep } from '@/lib/model/failover-story-lines';
import { controlButton } from '../controls/styles';
import { downloadText } from '../export/download';

/** The failover lab's history as the app's database has it, its export, and the checker's verdict on it. */
export function FailoverHistory({
  run,
  mode,
  steps,
}: {
  run: string | undefined;
  mode: string | undefined;
  steps: FailoverStep[];
}) {
  const violations = checkFailover(steps);
  return (
    <section aria-labelledby="fo-history" className="space-y-2 rounded-lg border p-4">
      <h2 id="fo-history" className="text-xl font-semibold">
        History (from the app’s database)
      </h2>
      <ol className="list-decimal space-y-1 pl-6" aria-label="Failover history">
        {steps.map((step, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the history only grows; its order is its identity
          <li key={index}>{describeFailoverStep(step)}</li>
        ))}
      </ol>
      <button
        type="button"
        className={controlButton}
        disabled={steps.length === 0}
        onClick={() =>
          downloadText(
            JSON.stringify({ lab: 'failover', run: run, mode: mode, steps, violations }, null, 2),
            'application/json',
            `fencing-lab-failover-${new Date().toISOString().replaceAll(':', '-')}.json`,
          )
        }
      >
        Export the history as JSON
      </button>
      <h3 className="font-semibold">The checker’s verdict</h3>
      {violations.length === 0 ? (
        <p role="status">No violation in {steps.length} steps.</p>
      ) : (
        <ul aria-label="Violations" className="list-disc space-y-1 pl-6">
          {violations.map((violation) => (
            <li key={violation.message}>
              ⚠ <strong>{violation.kind}</strong>: {violation.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
