/**
 * For a private lab's owner: how to run a worker of their own machine in this lab. Its join key is
 * what lets that worker in (the lab's id alone does not); the database URL is the room's worker line.
 */
export function OwnMachineWorker({ labId, joinKey }: { labId: string; joinKey: string }) {
  const command = `npm run worker -- --db <the worker URL from your trainer> --lab ${labId} --join-key ${joinKey} --name <your name>`;
  return (
    <details className="rounded-lg border border-slate-300 p-3 dark:border-slate-700" data-testid="own-machine-worker">
      <summary className="cursor-pointer font-semibold">Run a worker from your own machine in this lab</summary>
      <p className="mt-2 text-sm">
        In a checkout of Fencing Lab (after <code>npm ci</code>), with the worker URL of the room&apos;s worker line.
        The key lets that worker into this lab; keep it to yourself, as you keep the lab.
      </p>
      <pre className="mt-2 overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 text-sm dark:bg-slate-900">
        <code>{command}</code>
      </pre>
    </details>
  );
}
