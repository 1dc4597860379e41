import type { Metadata } from 'next';
import Link from 'next/link';
import { HistoryReplay } from '@/components/lab/replay/history-replay';
import { ThemeToggle } from '@/components/theme-toggle';

export const metadata: Metadata = { title: 'Replay a saved history · Fencing Lab' };

/** A history exported from any lab, replayed entirely in the browser. */
export default function ReplayPage() {
  return (
    <main className="mx-auto max-w-[110rem] space-y-4 px-4 py-4">
      <header className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold">
          <Link href="/" className="hover:underline">
            Fencing Lab
          </Link>{' '}
          <span className="font-normal">· Replay a saved history</span>
        </h1>
        <ThemeToggle />
      </header>
      <HistoryReplay />
    </main>
  );
}
