import 'server-only';
import { cookies } from 'next/headers';
import { type Credentials, OWNER_COOKIE, TRAINER_COOKIE } from './access';
import { trainerProofForSession } from './trainer-session';

/**
 * The caller's credentials, from its cookies: for server components and server actions. The
 * trainer cookie counts only while its session is live in the database (lib/server/trainer-session.ts).
 */
export async function readCredentials(): Promise<Credentials> {
  const jar = await cookies();
  const trainerProof = await trainerProofForSession(jar.get(TRAINER_COOKIE)?.value);
  const ownerSecret = jar.get(OWNER_COOKIE)?.value;
  return { ...(trainerProof ? { trainerProof } : {}), ...(ownerSecret ? { ownerSecret } : {}) };
}
