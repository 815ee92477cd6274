import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { BadUserInputError } from '../common/errors/app-error';
import { FeatureFlagRepository, type FlagValue } from './feature-flag.repository';
import { KNOWN_FLAG_KEYS, type FeatureFlagKey } from './feature-flags';

interface CachedFlags {
  expiresAt: number;
  flags: FlagValue[];
}

/**
 * Flag reads go through a short per-process cache (TTL from config, default 5 s), so a change
 * reaches every replica within the TTL without a database read on every request.
 */
@Injectable()
export class FeatureFlagService {
  private readonly cache = new Map<string, CachedFlags>();

  constructor(
    private readonly flags: FeatureFlagRepository,
    private readonly config: AppConfig,
  ) {}

  async listForTeam(teamId: string): Promise<FlagValue[]> {
    const ttl = this.config.featureFlags.cacheTtlMs;
    const now = Date.now();
    const cached = this.cache.get(teamId);
    if (ttl > 0 && cached && cached.expiresAt > now) return cached.flags;
    const flags = await this.flags.effectiveForTeam(teamId);
    if (ttl > 0) this.cache.set(teamId, { expiresAt: now + ttl, flags });
    return flags;
  }

  async isEnabled(teamId: string, key: FeatureFlagKey): Promise<boolean> {
    const flags = await this.listForTeam(teamId);
    return flags.find((f) => f.key === (key as string))?.enabled ?? false;
  }

  async setForTeam(teamId: string, key: string, enabled: boolean): Promise<FlagValue> {
    if (!KNOWN_FLAG_KEYS.includes(key)) {
      throw new BadUserInputError('key', `Unknown feature flag "${key}"; known flags: ${KNOWN_FLAG_KEYS.join(', ')}.`);
    }
    await this.flags.setForTeam(teamId, key, enabled);
    this.cache.delete(teamId);
    return { key, enabled };
  }
}
