import { createRecallLedgerClient, RecallLedgerError } from '../../clients/typescript/src';

// The bearer token lives in this module's memory only: never in storage or a cookie, so a reload
// or a closed tab signs out.
let token: string | null = null;

export const client = createRecallLedgerClient({ url: '/graphql', token: () => token ?? '' });

export function setSessionToken(value: string | null): void {
  token = value;
}

/** One sentence for a person: what went wrong and, where we know it, what to do. */
export function describeError(error: unknown): string {
  if (error instanceof RecallLedgerError) {
    switch (error.code) {
      case 'UNAUTHENTICATED':
        return `The token was refused: ${error.message} Paste a fresh token.`;
      case 'FORBIDDEN':
        return `This token may not read this: ${error.message} The console needs a token with the admin scope.`;
      default:
        return error.field ? `${error.message} (${error.field})` : error.message;
    }
  }
  return error instanceof Error ? error.message : String(error);
}
