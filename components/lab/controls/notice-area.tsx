'use client';

import { Marked } from '@/components/glyph';
import { useLabStore } from '../lab-store-provider';

/** The result of the last command: a status for success, an alert for an error. */
export function NoticeArea() {
  const notice = useLabStore((s) => s.notice);
  return (
    <div className="min-h-8">
      <p role="status" className="text-emerald-800 dark:text-emerald-300">
        {notice?.tone === 'ok' ? <Marked mark="✓">{notice.message}</Marked> : null}
      </p>
      <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
        {notice?.tone === 'error' ? <Marked mark="✗">{notice.message}</Marked> : null}
      </p>
    </div>
  );
}
