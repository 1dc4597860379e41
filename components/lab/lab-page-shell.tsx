import type { ReactNode } from 'react';
import type { LabAccess } from '@/lib/server/lab-page-data';
import { SiteHeader } from '../site-header';
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
    // On a phone the lab comes first and the other labs after it: eleven buttons would push the timeline a screen down.
    <main className="mx-auto flex max-w-[110rem] flex-col gap-4 px-4 py-4">
      <SiteHeader subtitle={props.subtitle}>
        <div className="flex items-center gap-4">
          <DriveStatus
            drives={canDrive}
            label={canDrive ? (lab.visibility === 'private' ? 'Your private lab' : 'Trainer: you drive') : 'Watching'}
          />
          {props.links}
          <ThemeToggle />
        </div>
      </SiteHeader>
      <div className="order-last md:order-none">
        <LabNav current={lab.id} mode={props.mode} />
      </div>
      {props.children}
    </main>
  );
}
