import { SetMetadata } from '@nestjs/common';
import type { Scope } from './scopes';

export const REQUIRED_SCOPES = 'recall-ledger:required-scopes';

/**
 * Declares what an operation needs: a valid token and every listed scope. With no scopes, any
 * valid token will do. An operation without this declaration is refused (fail closed).
 */
export const RequiresScope = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);
