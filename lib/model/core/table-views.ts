import type { Token } from './token';

/*
 * What the home page's tables show of the shared labs in the database: the rows and the leases.
 * db/ returns these (with more fields); the components read only these, so that the UI imports no
 * database code.
 */

/** A protected row as it stands (0: no token has written it yet). */
export type RowView = { id: number; value: string; lastToken: Token | 0; updatedAt: Date };

/** A lease with its state judged by the database's clock. */
export type LeaseView = {
  resource: string;
  holder: string;
  token: Token;
  expiresAt: Date;
  expired: boolean;
  remainingMs: number;
};
