import 'server-only';
import { cookies } from 'next/headers';
import { COOKIE_MAX_AGE_S, newOwnerSecret, OWNER_COOKIE } from './access';

/**
 * This browser's owner secret (its private labs', and who it is when it answers the room's
 * questions), given to it now in an HTTP-only cookie if it has none: for server actions only.
 */
export async function ownerSecretOfThisBrowser(): Promise<string> {
  const jar = await cookies();
  const held = jar.get(OWNER_COOKIE)?.value;
  if (held) return held;
  const ownerSecret = newOwnerSecret();
  jar.set(OWNER_COOKIE, ownerSecret, { httpOnly: true, sameSite: 'strict', path: '/', maxAge: COOKIE_MAX_AGE_S });
  return ownerSecret;
}
