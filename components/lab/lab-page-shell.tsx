import Link from 'next/link';
import type { ReactNode } from 'react';
import type { LabAccess } from '@/lib/server/lab-page-data';
import { ThemeToggle } from '../theme-toggle';
import { LabNav } from './lab-nav';

/** The frame of a lab's pages: title, who is driving, a link or two, the theme toggle, the labs side by side. */
export function LabPageShell(props: {
  access: LabAccess;
  mode: 'free' | 'walkthrough';
  subtitle: string;
  links?: ReactNode;
  children: ReactNode;
}) {
  const { lab, canDrive } = props.access;
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
          <span
            data-testid="drive-status"
            className={`rounded-full px-3 py-1 text-sm font-semibold ${
              canDrive
                ? 'bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100'
                : 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100'
            }`}
          >
            {canDrive ? (lab.visibility === 'private' ? 'Your private lab' : 'Trainer: you drive') : 'Watching'}
          </span>
          {props.links}
          <ThemeToggle />
        </div>
      </header>
      <LabNav current={lab.id} mode={props.mode} />
      {props.children}
    </main>
  );
}
