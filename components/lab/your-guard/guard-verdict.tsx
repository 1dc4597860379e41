'use client';

import Link from 'next/link';
import { useState } from 'react';
import { Glyph } from '@/components/glyph';
import type { GuardResult } from '@/lib/model/guard/guard-inputs';
import { type Said, waitAnnouncement, waitWords } from '@/lib/model/guard/guard-wait';

/*
 * What the editor shows of its attempt: while it waits, where it stands in the room's line (visible,
 * fresh each second) and, for a screen reader, only a change of place; then its verdict, with the
 * statement that ran and the link to its counterexample.
 */

/**
 * What the live region says while `result` waits: the words of its place when the place last changed
 * (lib/model/guard/guard-wait.ts), not every second's estimate.
 */
export function useWaitAnnouncement(result: GuardResult | undefined): string | undefined {
  const [said, setSaid] = useState<Said>();
  const next = waitAnnouncement(said, result);
  if (next !== said) setSaid(next);
  return next?.words;
}

/** The waiting attempt, visible: its place and estimate, and why Attack my guard is off. */
export function Waiting({
  result,
  reconnecting,
  reasonId,
}: {
  result: GuardResult;
  reconnecting: boolean;
  reasonId: string;
}) {
  return (
    <div data-testid="guard-queue" className="space-y-1 text-base">
      <p className="font-semibold text-slate-800 dark:text-slate-200">
        <Glyph>⏳</Glyph> {waitWords(result)}
      </p>
      <p id={reasonId} className="text-sm">
        Attempt {result.attemptId}: Attack my guard is off until its verdict is in (one guard in line per trainee); your
        statement stays here.
      </p>
      {reconnecting ? (
        <p className="text-sm text-amber-800 dark:text-amber-300">
          Reconnecting: the server did not answer; still asking after attempt {result.attemptId}…
        </p>
      ) : null}
    </div>
  );
}

export function Verdict({ result }: { result: GuardResult }) {
  const tone =
    result.outcome === 'passed' ? 'text-emerald-800 dark:text-emerald-300' : 'text-rose-800 dark:text-rose-300';
  // The mark is for the eye: hidden from screen readers, which would read "check mark" or "cross mark"
  // before the words (this paragraph is the editor's live region once the verdict is in).
  const [mark, word] = (
    {
      queued: ['⏳', 'Waiting'],
      passed: ['✓', 'Passed'],
      violation: ['✗', 'Broken'],
      refused: ['✗', 'Refused'],
      failed: ['✗', 'Not finished'],
    } as const
  )[result.outcome];
  return (
    <>
      <p className={`font-semibold ${tone}`}>
        <Glyph>{mark}</Glyph> {word}: {result.headline}
      </p>
      {result.detail ? <p className="text-sm">{result.detail}</p> : null}
      <p className="text-sm">
        Attempt {result.attemptId}, {result.outcome === 'refused' ? 'the statement refused' : 'the statement that ran'}:
      </p>
      <pre data-testid="guard-attempt-statement" className="whitespace-pre-wrap break-words font-mono text-sm">
        {result.statement}
      </pre>
      {result.hasCounterexample ? (
        <p>
          <Link className="font-semibold underline" href={`/replay?attempt=${result.attemptId}`}>
            Open the counterexample on the timeline (attempt {result.attemptId})
          </Link>
        </p>
      ) : null}
    </>
  );
}
