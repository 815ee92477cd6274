import type { GraphQLResolveInfo } from 'graphql';
import { selectsField } from '../common/graphql/selected-fields';

/** True when the query selects the connection's bounded count: only then is it run (R-FB-8). */
export function selectsCount(info: GraphQLResolveInfo): boolean {
  return selectsField(info, ['totalCount']) || selectsField(info, ['totalCountIsExact']);
}
