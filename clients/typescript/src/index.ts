export { createRecallLedgerClient } from './client';
export type { RecallLedgerClient, RecallLedgerClientOptions, TokenSource, VariablesArgument } from './client';
export { RecallLedgerError } from './recall-ledger-error';
export type { GraphqlErrorDetail, RecallLedgerErrorCode, RecallLedgerErrorInit } from './recall-ledger-error';
// Every operation's document (`MeDocument`, …), its result and variables types, and the input types and enums they use.
export * from './generated/graphql';
