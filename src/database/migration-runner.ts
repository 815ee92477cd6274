import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';

/** Applies pending migrations before the app serves anything. */
@Injectable()
export class MigrationRunner implements OnModuleInit {
  private readonly logger = new Logger(MigrationRunner.name);

  constructor(private readonly orm: MikroORM) {}

  async onModuleInit(): Promise<void> {
    const applied = await this.orm.migrator.up();
    if (applied.length > 0) this.logger.log(`applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`);
  }
}
