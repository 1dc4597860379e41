import 'server-only';
import { databaseUrl } from '../../db/pool';
import { localWorkerUrlFrom } from '../../db/roles';

/**
 * The URL the workers this server forks connect with: the local worker role's (db/roles.ts), never
 * the owner's, nor the room's worker line, whose connections a trainee may fill (issue 23). Its
 * password is FENCING_LAB_LOCAL_WORKER_PASSWORD, which the launcher (and the test runners) set after
 * the migrations from ensureLocalWorkerPassword.
 */
export function localWorkerUrl(): string {
  const password = process.env.FENCING_LAB_LOCAL_WORKER_PASSWORD;
  if (!password) {
    throw new Error(
      'FENCING_LAB_LOCAL_WORKER_PASSWORD is not set: start the app with `npm start`, which sets it after the migrations',
    );
  }
  return localWorkerUrlFrom(databaseUrl(), password);
}
