// Prints a bearer token signed with the configured secret, so a newcomer can call the API:
//   npm run token -- --user <uuid> --team <uuid> --scope "memory:read memory:write" [--ttl 3600]
import { parseArgs } from 'node:util';
import { UUID_PATTERN as UUID } from '../common/uuid-pattern';
import { loadConfig } from '../config/load-config';
import { signToken } from '../tenancy';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      user: { type: 'string' },
      team: { type: 'string' },
      scope: { type: 'string', default: 'memory:read memory:write feedback:write' },
      ttl: { type: 'string', default: '3600' },
    },
  });
  const userId = values.user ?? crypto.randomUUID();
  const teamId = values.team ?? crypto.randomUUID();
  if (!UUID.test(userId) || !UUID.test(teamId)) throw new Error('--user and --team must be UUIDs');
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl <= 0) throw new Error('--ttl must be a positive number of seconds');

  const config = loadConfig();
  if (!config.auth.jwtSecret) throw new Error('No AUTH_JWT_SECRET configured (JWKS-only set-ups mint tokens elsewhere)');
  const token = await signToken({
    userId,
    teamId,
    scopes: values.scope.split(/\s+/).filter(Boolean),
    secret: config.auth.jwtSecret,
    expiresInSeconds: ttl,
    issuer: config.auth.issuer,
    audience: config.auth.audiences?.[0],
  });
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
