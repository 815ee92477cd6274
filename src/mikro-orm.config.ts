// Entry point for the MikroORM CLI (`npm run migration:create`, `migration:check`).
// It reads DATABASE_URL like the app; the app itself builds its options in `database/`.
import { APP_ENTITIES } from './app-entities';
import { loadConfig } from './config/load-config';
import { ormOptions } from './database/orm-options';

const config = loadConfig();
if (!config.database.url) {
  throw new Error('The MikroORM CLI needs DATABASE_URL (start the service once to get the embedded one).');
}

export default ormOptions({ url: config.database.url, entities: APP_ENTITIES });
