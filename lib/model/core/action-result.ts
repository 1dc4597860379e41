/** What every server action returns: the data, or an error a person can read. Never throws. */
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: { code: string; message: string } };
