import { setTimeout as sleep } from 'node:timers/promises';
import { COOKIE_MAX_AGE_S, isTrainerKey, TRAINER_COOKIE, trainerKey, trainerProofOf } from '@/lib/server/access';

export const runtime = 'nodejs';

const WRONG_KEY_DELAY_MS = 400;
export const dynamic = 'force-dynamic';

/**
 * The trainer's link, as the launcher prints it: /unlock?key=…. A right key leaves a cookie that
 * lets this browser drive the shared labs, and the key out of the address bar; a wrong one says so.
 */
export async function GET(request: Request) {
  const key = new URL(request.url).searchParams.get('key') ?? '';
  const ok = key.length > 0 && key.length <= 200 && isTrainerKey(key);
  // As slow on a wrong key as the form is: a key chosen by hand should not be quick to guess.
  if (!ok) await sleep(WRONG_KEY_DELAY_MS);
  const headers = new Headers({ Location: ok ? '/' : '/?unlock=failed', 'Cache-Control': 'no-store' });
  if (ok) {
    headers.append(
      'Set-Cookie',
      `${TRAINER_COOKIE}=${trainerProofOf(trainerKey())}; Path=/; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict`,
    );
  }
  return new Response(null, { status: 303, headers });
}
