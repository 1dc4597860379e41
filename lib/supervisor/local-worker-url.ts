import 'server-only';
import { databaseUrl } from '../../db/pool';
import { workerUrlFrom } from '../../db/roles';

/**
 * The URL the workers this server forks connect with: the worker role's (db/roles.ts), never the
 * owner's. Its password is FENCING_LAB_WORKER_PASSWORD, which the launcher (and the test runners)
 * set after the migrations from ensureWorkerPassword.
 */
export function localWorkerUrl(): string {
  const password = process.env.FENCING_LAB_WORKER_PASSWORD;
  if (!password) {
    throw new Error(
      'FENCING_LAB_WORKER_PASSWORD is not set: start the app with `npm start`, which sets it after the migrations',
    );
  }
  return workerUrlFrom(databaseUrl(), password);
}
