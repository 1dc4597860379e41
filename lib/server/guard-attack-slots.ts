import 'server-only';
import { FencingError } from '../model/errors';
import { limitFromEnv } from './feed-slots';

/*
 * How many attacks on trainees' guards this server runs (each is two to four real worker processes
 * for up to ~20 s): one at a time per owner, at most a few a minute per owner, and a bound in total
 * for the machine (2 on a 2-CPU box). A refusal is a FencingError the editor shows; the statement
 * stays in the editor, and nothing is recorded, so nothing is lost. The bounds can be raised.
 */

const DEFAULT_MAX_RUNNING = 2;
const DEFAULT_PER_OWNER_PER_MINUTE = 6;
const MINUTE_MS = 60_000;

export class GuardAttackSlots {
  private readonly running = new Set<string>();
  private readonly starts = new Map<string, number[]>();

  constructor(
    private readonly limits: () => { running: number; perOwnerPerMinute: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** A slot for an attack by `owner`, with its release (idempotent); or a FencingError that says why not. */
  take(owner: string): { release: () => void } {
    const { running, perOwnerPerMinute } = this.limits();
    const now = this.now();
    if (this.running.has(owner)) {
      throw new FencingError('rate_limited', 'your guard is already being attacked: wait for its verdict');
    }
    const recent = (this.starts.get(owner) ?? []).filter((at) => at > now - MINUTE_MS);
    if (recent.length >= perOwnerPerMinute) {
      const wait = Math.ceil(((recent[0] as number) + MINUTE_MS - now) / 1000);
      throw new FencingError(
        'rate_limited',
        `at most ${perOwnerPerMinute} attacks a minute: try again in ${wait} s (your statement is kept)`,
      );
    }
    if (this.running.size >= running) {
      throw new FencingError(
        'rate_limited',
        'the lab is busy (other guards are being attacked): try again in a moment (your statement is kept)',
      );
    }
    this.running.add(owner);
    this.starts.set(owner, [...recent, now]);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running.delete(owner);
      },
    };
  }

  /** Attacks running now (for tests). */
  count(): number {
    return this.running.size;
  }
}

type GlobalWithSlots = typeof globalThis & { __fencingLabGuardAttackSlots?: GuardAttackSlots };

/** The server's one count of running attacks (kept on globalThis: Next loads modules more than once). */
export function getGuardAttackSlots(): GuardAttackSlots {
  const holder = globalThis as GlobalWithSlots;
  holder.__fencingLabGuardAttackSlots ??= new GuardAttackSlots(() => ({
    running: limitFromEnv('FENCING_LAB_MAX_GUARD_ATTACKS', DEFAULT_MAX_RUNNING),
    perOwnerPerMinute: limitFromEnv('FENCING_LAB_GUARD_ATTACKS_PER_MINUTE', DEFAULT_PER_OWNER_PER_MINUTE),
  }));
  return holder.__fencingLabGuardAttackSlots;
}
