import type { Metadata } from 'next';
import { SiteHeader } from '@/components/site-header';
import { ClassWall } from '@/components/wall/class-wall';
import { isTrainer } from '@/lib/server/access';
import { readCredentials } from '@/lib/server/request-credentials';

export const metadata: Metadata = { title: 'The class wall · Fencing Lab' };
export const dynamic = 'force-dynamic';

/** Every trainee's guard attempts, live, for the trainer's projector; anyone else sees only their own. */
export default async function WallPage() {
  const trainer = isTrainer(await readCredentials());
  return (
    <main className="mx-auto max-w-6xl space-y-4 px-4 py-4">
      <SiteHeader subtitle="The class wall" />
      <p className="text-base">
        {trainer
          ? 'Every guard the room submitted in a "Your guard" lab, one row per attempt, newest first: its statement, what the attack tried and held against or the violation it found, with the history that shows it. Each name carries a short tag of its browser, so two trainees with one name read apart.'
          : 'Your own guard attempts (the trainer sees the whole room’s). Open a private lab of the kind "Your guard" to write one.'}
      </p>
      <ClassWall trainer={trainer} />
    </main>
  );
}
