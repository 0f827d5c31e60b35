import { timingSafeEqual } from 'node:crypto';

import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { ORCHESTRATOR_DATA_SOURCE } from '../database/data-source-name';
import { hashKey } from './api-key';
import { ApiKeyRepository } from './api-key.repository';
import { DEFAULT_TENANT } from './tenant';

/** Who a request is: its tenant and the key it used (the key's id, never the key). */
export interface Principal {
  tenantId: string;
  keyId: string;
}

/** How long "are keys configured at all?" is remembered (a key created by the admin command counts after this). */
const REQUIRED_TTL_MS = 2000;

/**
 * API keys from `API_KEYS` (tenant:key pairs) and from the `api_keys` table (hashed, managed by
 * `npm run api-keys`). A presented key is hashed and compared with timingSafeEqual against every
 * configured key's hash; keys are never logged.
 */
@Injectable()
export class ApiKeyAuth implements OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');
  private readonly envKeys: Array<{ tenantId: string; hash: Buffer; keyId: string }>;
  private readonly store: ApiKeyRepository;
  private requiredCache?: { value: boolean; at: number };

  constructor(config: AppConfig, @InjectDataSource(ORCHESTRATOR_DATA_SOURCE) db: DataSource) {
    this.envKeys = config.security.apiKeys.map((k, i) => ({
      tenantId: k.tenant,
      hash: Buffer.from(hashKey(k.key), 'hex'),
      keyId: `env-${i + 1}`,
    }));
    this.store = new ApiKeyRepository((sql, params) => db.query(sql, params));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.required())) {
      this.logger.warn(
        `No API keys configured (API_KEYS unset, no keys issued in api_keys): every request runs as tenant "${DEFAULT_TENANT}", unauthenticated`,
      );
    } else {
      this.logger.log(`API keys required (${this.envKeys.length} from API_KEYS, plus the active keys in api_keys)`);
    }
  }

  /** Whether any key is configured (in API_KEYS, or issued in api_keys, revoked or not): then every route but /health/* needs one. */
  async required(): Promise<boolean> {
    if (this.envKeys.length > 0) return true;
    const now = Date.now();
    if (this.requiredCache && now - this.requiredCache.at < REQUIRED_TTL_MS) return this.requiredCache.value;
    let value: boolean;
    try {
      value = await this.store.anyIssued();
    } catch (err) {
      // the database is away: keep the last answer rather than refuse every request until it is back (with
      // keys in API_KEYS nothing is read; a first check that fails still fails)
      if (this.requiredCache) return this.requiredCache.value;
      throw err;
    }
    this.requiredCache = { value, at: now };
    return value;
  }

  /** The principal of a presented key, or null for a missing, unknown or revoked key. */
  async authenticate(presented: string | undefined): Promise<Principal | null> {
    if (!presented || presented.length > 512) return null;
    const hash = Buffer.from(hashKey(presented), 'hex');
    let match: Principal | null = null;
    for (const k of this.envKeys) {
      // every configured key is compared, so the time taken does not tell which one matched
      if (timingSafeEqual(k.hash, hash) && !match) match = { tenantId: k.tenantId, keyId: k.keyId };
    }
    if (match) return match;
    const row = await this.store.findActive(hash.toString('hex'));
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), hash)) return null;
    return { tenantId: row.tenant_id, keyId: row.id };
  }
}
