import Link from 'next/link';
import type { ReactNode } from 'react';
import type { LabId } from '@/lib/model/labs';
import { ThemeToggle } from '../theme-toggle';
import { LabNav } from './lab-nav';

/** The frame of a lab's pages: title, a link or two, the theme toggle, the labs side by side. */
export function LabPageShell(props: {
  lab: LabId;
  mode: 'free' | 'walkthrough';
  subtitle: string;
  links?: ReactNode;
  children: ReactNode;
}) {
  return (
    <main className="mx-auto max-w-[110rem] space-y-4 px-4 py-4">
      <header className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold">
          <Link href="/" className="hover:underline">
            Fencing Lab
          </Link>{' '}
          <span className="font-normal">· {props.subtitle}</span>
        </h1>
        <div className="flex items-center gap-4">
          {props.links}
          <ThemeToggle />
        </div>
      </header>
      <LabNav current={props.lab} mode={props.mode} />
      {props.children}
    </main>
  );
}
