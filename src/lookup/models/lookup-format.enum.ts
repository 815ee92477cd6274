import { registerEnumType } from '@nestjs/graphql';

/** What `recallToolResult` returns when no key (`query`, range, `json_path`) is given. R-LG-2 */
export enum LookupFormat {
  SUMMARY = 'SUMMARY',
  FULL = 'FULL',
}

registerEnumType(LookupFormat, { name: 'RecallFormat' });
