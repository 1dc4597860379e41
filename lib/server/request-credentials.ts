import 'server-only';
import { cookies } from 'next/headers';
import { type Credentials, OWNER_COOKIE, TRAINER_COOKIE } from './access';

/** The caller's credentials, from its cookies: for server components and server actions. */
export async function readCredentials(): Promise<Credentials> {
  const jar = await cookies();
  const trainerProof = jar.get(TRAINER_COOKIE)?.value;
  const ownerSecret = jar.get(OWNER_COOKIE)?.value;
  return { ...(trainerProof ? { trainerProof } : {}), ...(ownerSecret ? { ownerSecret } : {}) };
}
