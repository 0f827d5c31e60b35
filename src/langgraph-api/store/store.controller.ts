import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';

import { Tenant } from '../../auth/tenant.guard';
import {
  StoreDelete,
  type StoreDeleteBody,
  StoreGet,
  type StoreGetQuery,
  StoreNamespaces,
  type StoreNamespacesBody,
  StorePut,
  type StorePutBody,
  StoreSearch,
  type StoreSearchBody,
} from '../schemas';
import { ZodPipe } from '../zod-body.pipe';
import { StoreService } from './store.service';

/** LangGraph Server `/store` (langgraphjs `libs/langgraph-api/src/api/store.mts`), per tenant. */
@Controller('store')
export class StoreController {
  constructor(private readonly store: StoreService) {}

  @Put('items')
  @HttpCode(204)
  async put(@Tenant() tenantId: string, @Body(new ZodPipe(StorePut)) body: StorePutBody): Promise<void> {
    await this.store.put(tenantId, body.namespace, body.key, body.value, body.index, body.ttl);
  }

  /** The item, or JSON `null` (200) when there is none, as the reference answers. */
  @Get('items')
  async get(@Tenant() tenantId: string, @Query(new ZodPipe(StoreGet)) q: StoreGetQuery, @Res() res: Response): Promise<void> {
    res.status(200).json(await this.store.get(tenantId, q.namespace, q.key, q.refresh_ttl));
  }

  @Delete('items')
  @HttpCode(204)
  async delete(@Tenant() tenantId: string, @Body(new ZodPipe(StoreDelete)) body: StoreDeleteBody): Promise<void> {
    await this.store.delete(tenantId, body.namespace ?? [], body.key);
  }

  @Post('items/search')
  @HttpCode(200)
  async search(@Tenant() tenantId: string, @Body(new ZodPipe(StoreSearch)) body: StoreSearchBody) {
    return { items: await this.store.search(tenantId, body.namespace_prefix, body) };
  }

  @Post('namespaces')
  @HttpCode(200)
  async namespaces(@Tenant() tenantId: string, @Body(new ZodPipe(StoreNamespaces)) body: StoreNamespacesBody) {
    return { namespaces: await this.store.namespaces(tenantId, body) };
  }
}
