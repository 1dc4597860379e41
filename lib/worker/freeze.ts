import { readSync } from 'node:fs';
import { PAUSE_FD } from './protocol';

/*
 * The simulated GC pause is a real stop-the-world freeze: a synchronous, blocking read on the pause
 * pipe. While it blocks, this process runs no JavaScript at all: no timers, no lease renewal, no I/O
 * callbacks, exactly like a long GC pause. Chosen over SIGSTOP/SIGCONT because:
 *  - a pause armed for the critical window must strike at one exact line of code, which only the
 *    worker itself can do;
 *  - a blocked read ends with EOF when the supervisor dies, even by SIGKILL (the pipe's other end
 *    closes), so a paused worker can never outlive the server as a stopped orphan;
 *  - SIGTERM still ends it at once, since the worker installs no handler for it.
 */
export function freezeUntilResumed(): { resumed: boolean; frozenMs: number } {
  const started = Date.now();
  const byte = Buffer.alloc(1);
  for (;;) {
    try {
      const read = readSync(PAUSE_FD, byte, 0, 1, null);
      return { resumed: read === 1, frozenMs: Date.now() - started };
    } catch (error) {
      // EAGAIN would mean the pipe is non-blocking (it is not, as the fork creates it); EINTR: retry.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EINTR') throw error;
    }
  }
}
