import type { Token } from './token';

/**
 * The outcome of a fenced write. A caller must switch on `outcome`: a stale write is not an error
 * and not a success, and it carries both tokens so the rejection can be explained.
 */
export type WriteResult =
  | { outcome: 'accepted'; rowId: number; value: string; token: Token }
  | { outcome: 'stale'; rowId: number; presentedToken: Token; storedToken: Token | 0 };
