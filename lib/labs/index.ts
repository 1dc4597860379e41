import { bypass } from './bypass';
import { delayedPacket } from './delayed-packet';
import { delayedPacketUnfenced } from './delayed-packet-unfenced';
import { driftingClock } from './drifting-clock';
import { driftingClockFenced } from './drifting-clock-fenced';
import { failover } from './failover';
import { fenced } from './fenced';
import { noFencing } from './no-fencing';
import { perProcessCounter } from './per-process-counter';
import { readCheckWrite } from './read-check-write';
import { sameTokenTakeover } from './same-token-takeover';
import { tokenAsText } from './token-as-text';
import { yourGuard } from './your-guard';

/*
 * The registry of lab kinds: one definition per kind, in the order the app lists them. Everything
 * else about a kind is asked of its traits (traits.ts), never of its id.
 */
export const LAB_KINDS = [
  fenced,
  noFencing,
  readCheckWrite,
  tokenAsText,
  perProcessCounter,
  bypass,
  sameTokenTakeover,
  driftingClock,
  driftingClockFenced,
  delayedPacket,
  delayedPacketUnfenced,
  failover,
  yourGuard,
] as const;

export type LabKind = (typeof LAB_KINDS)[number];
export type LabId = LabKind['id'];
/** A kind whose traits match `Traits`: e.g. KindWith<{ runner: 'supervised-workers' }>. */
export type KindWith<Traits> = Extract<LabKind, { traits: Traits }>['id'];

export const LAB_IDS = LAB_KINDS.map((kind) => kind.id) as unknown as readonly [LabId, ...LabId[]];

export const LABS = Object.fromEntries(LAB_KINDS.map((kind) => [kind.id, kind])) as {
  [Id in LabId]: Extract<LabKind, { id: Id }>;
};

export function isLabId(value: unknown): value is LabId {
  return typeof value === 'string' && (LAB_IDS as readonly string[]).includes(value);
}

export type { LabDefinition } from './define';
