/**
 * The environment variable that names the worker bundle's directory (the one holding main.mjs), set by
 * the command that made it (lib/os/worker-bundle.ts) and read where workers are spawned
 * (lib/supervisor/worker-process.ts). A file of its own, so that the Next server's code, which reads
 * it, never imports the bundler.
 */
export const WORKER_BUNDLE_ENV = 'FENCING_LAB_WORKER_BUNDLE';
