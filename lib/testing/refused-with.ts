import assert from 'node:assert/strict';

/** Asserts that `work` fails with the PostgreSQL error `code` (a SQLSTATE such as 42501), naming `what`. */
export async function refusedWith(code: string, work: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(
    work,
    (error: { code?: string; message?: string }) => {
      assert.equal(error.code, code, `${what}: expected SQLSTATE ${code}, got ${error.code} (${error.message})`);
      return true;
    },
    what,
  );
}
