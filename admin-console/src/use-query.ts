import { useEffect, useState } from 'preact/hooks';
import type { TypedDocumentString, VariablesArgument } from '../../clients/typescript/src';
import { client, describeError } from './session';

/** A query's answer as a page shows it: loading (data and problem null), its data, or a sentence saying what went wrong. */
export interface QueryState<R> {
  data: R | null;
  problem: string | null;
}

/** Runs the query when the page shows and again whenever `key` changes: the text its variables are made from. */
export function useQuery<R, V>(document: TypedDocumentString<R, V>, variables: V, key: string): QueryState<R> {
  const [state, setState] = useState<QueryState<R>>({ data: null, problem: null });
  useEffect(() => {
    let current = true;
    setState({ data: null, problem: null });
    client.request(document, ...([variables] as VariablesArgument<V>)).then(
      (data) => current && setState({ data, problem: null }),
      (error: unknown) => current && setState({ data: null, problem: describeError(error) }),
    );
    // A newer key's answer replaces this one; a late answer to an old key is dropped.
    return () => {
      current = false;
    };
  }, [document, key]);
  return state;
}
