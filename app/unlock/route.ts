import { answeringErrors } from '@/lib/server/error-answers';
import { unlockTrainer } from '@/lib/server/trainer-session';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The trainer's link, as the launcher prints it: /unlock?key=…. The same unlock as the form
 * (lib/server/trainer-session.ts): a right key opens a trainer session and leaves its cookie, and
 * the key leaves the address bar; a wrong one says so on the home page.
 */
export const GET = answeringErrors('unlock', async (request: Request): Promise<Response> => {
  const result = await unlockTrainer({ key: new URL(request.url).searchParams.get('key') ?? '' });
  return new Response(null, {
    status: 303,
    headers: { Location: result.ok ? '/' : '/?unlock=failed', 'Cache-Control': 'no-store' },
  });
});
