/** Returns the same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** The embedded server starts with only `postgres`; the app keeps its data in its own database. */
export const EMBEDDED_APP_DATABASE = 'recall_ledger';
