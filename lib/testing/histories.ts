import { readFileSync } from 'node:fs';
import type { WireEvent } from '../model/core/wire';

/**
 * A history recorded from a real run of a lab's scenario (lib/testing/record-history.ts): the pause,
 * or the lab's own story (the drifting clock, the delayed packet, the failover lab's asynchronous one
 * with 40 grants past the cut).
 */
export function recorded(
  name:
    | 'fenced'
    | 'no-fencing'
    | 'token-as-text'
    | 'same-token-takeover'
    | 'drifting-clock'
    | 'drifting-clock-fenced'
    | 'delayed-packet'
    | 'delayed-packet-unfenced'
    | 'failover',
): WireEvent[] {
  const story = name.startsWith('drifting-clock')
    ? 'drift'
    : name.startsWith('delayed-packet')
      ? 'held'
      : name === 'failover'
        ? 'async'
        : 'pause';
  const file = new URL(`../model/fixtures/${name}-${story}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as WireEvent[];
}

/**
 * Hand-made histories: `at(s)` is `s` seconds after `origin`, `ev(...)` one event of the fenced lab.
 */
export function handMade(origin: number) {
  const at = (s: number) => origin + Math.round(s * 1000);
  const ev = (
    id: number,
    s: number,
    actor: string,
    kind: WireEvent['kind'],
    extra: Partial<WireEvent> = {},
  ): WireEvent => ({
    id,
    lab: 'fenced',
    at: at(s),
    actor,
    kind,
    detail: {},
    ...extra,
  });
  return { at, ev };
}
