import { Init1763870000000 } from './1763870000000-init';
import { Contracts1763880000000 } from './1763880000000-contracts';
import { Documents1763890000000 } from './1763890000000-documents';
import { Vectors1763900000000 } from './1763900000000-vectors';
import { TenantSessions1763920000000 } from './1763920000000-tenant-sessions';
import { ApiKeys1763920000001 } from './1763920000001-api-keys';
import { RunApproval1763960000000 } from './1763960000000-run-approval';
import { ToolLedger1763970000000 } from './1763970000000-tool-ledger';
import { LangGraphApi1763980000000 } from './1763980000000-langgraph-api';
import { Crons1763990000000 } from './1763990000000-crons';
import { WebhookSweepIndex1764000000000 } from './1764000000000-webhook-sweep-index';
import { RunOwner1764010000000 } from './1764010000000-run-owner';
import { StoreOwners1764020000000 } from './1764020000000-store-owners';
import { ThreadTaint1764030000000 } from './1764030000000-thread-taint';
import { IdempotencyPerPrincipal1764030000003 } from './1764030000003-idempotency-per-principal';
import { KnowledgeOwners1764031000000 } from './1764031000000-knowledge-owners';
import { StoreVectors1764040000000 } from './1764040000000-store-vectors';

/** Every migration, in order. TypeORM runs the pending ones at start-up (never `synchronize`). */
export const MIGRATIONS = [
  Init1763870000000,
  Contracts1763880000000,
  Documents1763890000000,
  Vectors1763900000000,
  TenantSessions1763920000000,
  ApiKeys1763920000001,
  RunApproval1763960000000,
  ToolLedger1763970000000,
  LangGraphApi1763980000000,
  Crons1763990000000,
  WebhookSweepIndex1764000000000,
  RunOwner1764010000000,
  StoreOwners1764020000000,
  ThreadTaint1764030000000,
  IdempotencyPerPrincipal1764030000003,
  KnowledgeOwners1764031000000,
  StoreVectors1764040000000,
];
