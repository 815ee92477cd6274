// @ts-check
/**
 * The house's local ESLint plugin, registered as `house` in eslint.config.mjs.
 *
 * - `house/no-sql-outside-repositories`: SQL text only in repositories, run-sql.ts and migrations.
 * - `house/feature-entry-point`: eslint-plugin-boundaries' `dependencies` rule under a second name,
 *   so the feature entry-point policy (only `src/X/index.ts` from outside X) is configured and
 *   reported apart from the layer-direction policy in `boundaries/dependencies` (one rule can hold
 *   one set of options; the plugin's own `entry-point` rule is deprecated in its favour).
 */
import boundariesModule from 'eslint-plugin-boundaries';
import noSqlOutsideRepositories from './no-sql-outside-repositories.mjs';

// CommonJS plugin: at run time the default import is the plugin itself; its types describe `.default`.
const boundaries = boundariesModule.default ?? boundariesModule;

export default {
  meta: { name: 'house' },
  rules: {
    'no-sql-outside-repositories': noSqlOutsideRepositories,
    'feature-entry-point': boundaries.rules.dependencies,
  },
};
