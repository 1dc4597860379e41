/**
 * Every command a worker takes, whichever server sent it and wherever the worker runs: queued in
 * worker_commands (its CHECK lists the same words), taken by the worker's listener thread
 * (lib/worker/listener.ts). Adding a command: here, the table's CHECK (a migration), the listener's
 * switch, the supervisor's method that sends it (lib/supervisor/supervisor.ts), and the lab's command
 * that calls that (lib/server/lab-commands.ts).
 */
export const WORKER_COMMANDS = ['pause-now', 'arm-critical-pause', 'cancel-pauses', 'resume', 'crash', 'stop'] as const;

export type WorkerCommand = (typeof WORKER_COMMANDS)[number];
