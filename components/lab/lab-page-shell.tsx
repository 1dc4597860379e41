import Link from 'next/link';
import type { ReactNode } from 'react';
import type { LabAccess } from '@/lib/server/lab-page-data';
import { ThemeToggle } from '../theme-toggle';
import { DriveStatus } from './drive-status';
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
          <DriveStatus
            drives={canDrive}
            label={canDrive ? (lab.visibility === 'private' ? 'Your private lab' : 'Trainer: you drive') : 'Watching'}
          />
          {props.links}
          <ThemeToggle />
        </div>
      </header>
      <LabNav current={lab.id} mode={props.mode} />
      {props.children}
    </main>
  );
}
