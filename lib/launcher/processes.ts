/*
 * The process helpers moved to lib/os/processes.ts, a leaf that the process layer (lib/lab/) may
 * import too. This file stays only until main.ts and embedded-postgres.ts import from there
 * (issue 11: those two files are being rewritten elsewhere); then delete it.
 */
export * from '../os/processes';
