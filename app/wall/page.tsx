import type { Metadata } from 'next';
import Link from 'next/link';
import { ThemeToggle } from '@/components/theme-toggle';
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
      <header className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold">
          <Link href="/" className="hover:underline">
            Fencing Lab
          </Link>{' '}
          <span className="font-normal">· The class wall</span>
        </h1>
        <ThemeToggle />
      </header>
      <p className="text-base">
        {trainer
          ? 'Every guard the room submitted in a "Your guard" lab, newest first: pass, or the violation the attack found, with the history that shows it.'
          : 'Your own guard attempts (the trainer sees the whole room’s). Open a private lab of the kind "Your guard" to write one.'}
      </p>
      <ClassWall />
    </main>
  );
}
