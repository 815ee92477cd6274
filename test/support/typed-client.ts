import { RecallLedgerError } from '../../clients/typescript/src';

/** The error `promise` rejects with, failing the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<RecallLedgerError> {
  const outcome = await promise.then(
    (data) => new Error(`expected a RecallLedgerError, got the data ${JSON.stringify(data)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof RecallLedgerError)) throw outcome;
  return outcome;
}
