'use client';

import { useEffect, useRef, useState } from 'react';
import { guardAttemptAction } from '@/app/actions';
import type { GuardResult } from '@/lib/model/guard/guard-inputs';

/*
 * While the editor's guard waits in the room's line or is attacked, the editor asks after it about
 * once a second (guardAttemptAction) until its verdict is in: each answer is its place and estimate
 * as the queue recorded them, or the verdict. One question at a time; it stops when the editor goes.
 */

const ASK_EVERY_MS = 1_000;

export type GuardWait = {
  /** The last question did not reach the server (or the server failed it): still asking. */
  reconnecting: boolean;
};

/**
 * Asks after `result` while it is queued: `onAnswer` with each fresh result (queued again, or the
 * verdict), `onLost` when the server says the attempt cannot be asked after (the lab is gone, not the
 * caller's): then it stops.
 */
export function useGuardWait(
  labId: string,
  result: GuardResult | undefined,
  onAnswer: (result: GuardResult) => void,
  onLost: (message: string) => void,
): GuardWait {
  const [reconnecting, setReconnecting] = useState(false);
  const handlers = useRef({ onAnswer, onLost });
  handlers.current = { onAnswer, onLost };
  useEffect(() => {
    if (result?.outcome !== 'queued') {
      setReconnecting(false);
      return;
    }
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      // The server could not be reached: `undefined` is asked again below, like an internal fault.
      const answer = await guardAttemptAction({ lab: labId, attempt: result.attemptId }).catch(() => undefined);
      if (stopped) return;
      // A fault of the server's own (its database away) passes like a lost connection: ask again.
      if (!answer || (!answer.ok && answer.error.code === 'internal')) {
        setReconnecting(true);
        timer = setTimeout(ask, ASK_EVERY_MS);
        return;
      }
      setReconnecting(false);
      if (answer.ok) handlers.current.onAnswer(answer.data);
      else handlers.current.onLost(answer.error.message);
    };
    // A result without a place was read from the attempt's row alone (the editor's start): ask at once.
    timer = setTimeout(ask, result.queue ? ASK_EVERY_MS : 0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [labId, result]);
  return { reconnecting };
}
