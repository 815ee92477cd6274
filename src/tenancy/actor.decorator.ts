import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { graphqlRequest } from './graphql-request';

/**
 * Hands the request's `ActorContext` to a resolver. Throws when the auth guard never ran, so a
 * missing guard can never fall back to a wrong or empty identity.
 */
export const Actor = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const actor = graphqlRequest(context).actor;
  if (!actor) throw new Error('@Actor() used on an operation the auth guard did not resolve');
  return actor;
});
