import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { inTransactionWithTimeout } from './run-sql';

/**
 * Transactions for a service whose work spans several modules' repositories (a retention batch, a
 * user's deletion): their statements join the transaction through MikroORM's async context, so
 * the service itself needs no EntityManager.
 */
@Injectable()
export class UnitOfWork {
  constructor(private readonly em: EntityManager) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    return this.em.transactional(() => work());
  }

  /** One transaction whose statements are canceled after `timeoutMs` each. */
  runWithTimeout<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
    return inTransactionWithTimeout(this.em, timeoutMs, () => work());
  }
}
