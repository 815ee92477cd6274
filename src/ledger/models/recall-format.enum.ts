import { registerEnumType } from '@nestjs/graphql';

/** What `recallToolResult` returns when no key (query, range, json_path) is given. R-LG-2 */
export enum RecallFormat {
  SUMMARY = 'SUMMARY',
  FULL = 'FULL',
}

registerEnumType(RecallFormat, { name: 'RecallFormat' });
