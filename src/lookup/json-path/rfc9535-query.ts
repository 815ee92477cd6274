import { JSONPathError, type JSONPathQuery } from 'json-p3';
import { linearTimeEnvironment } from './i-regexp';

/** match() and search() on RE2, so a query's regular expressions cannot backtrack. */
const environment = linearTimeEnvironment();

/** A parsed RFC 9535 query; `singular` when it selects at most one node (names and indexes only). */
export interface Rfc9535Query {
  readonly query: JSONPathQuery;
  readonly singular: boolean;
}

/**
 * Parses an RFC 9535 query with json-p3, which checks everything the RFC asks of a valid query:
 * the grammar, integers within ±(2^53−1), well-typed function calls (§2.4.3). A problem is a
 * sentence saying what is wrong and where.
 */
export function parseRfc9535Query(text: string): Rfc9535Query | { problem: string } {
  try {
    const query = environment.compile(text);
    return { query, singular: query.singularQuery() };
  } catch (error) {
    if (!(error instanceof JSONPathError)) throw error;
    // json-p3 ends its messages with a quote of the text around the token; the position says it shorter.
    const message = error.message.replace(/\s*\('.*':\d+\)$/s, '').replace(/[.\s]+$/, '');
    return { problem: `${message} at character ${error.token.index + 1}` };
  }
}
