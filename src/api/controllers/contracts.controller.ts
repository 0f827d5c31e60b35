import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';

import { ResourceAccess } from '../../auth/resource-access';
import { Tenant } from '../../auth/tenant.guard';
import { AppConfig } from '../../config/app-config';
import { DomainException } from '../../core/errors';
import { ContractNotFoundException, ContractsService, type ContractView } from '../../knowledge/contracts/contracts.service';
import { ApiConsumes, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '../../platform/openapi-decorators';
import { ApiErrors, ApiQueryParams, ApiRequestBody } from '../dto/api-docs';
import {
  ContractDto,
  ContractListDto,
  type ContractListQueryDto,
  ContractListQuerySchema,
  type CreateContractDto,
  CreateContractSchema,
} from '../dto/contract.dto';
import { findBadInput, uploadProblem } from '../input-guard';
import { body, query } from '../validation/zod-request.pipe';
import { isUuid } from './ids';

const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

/** `{ contract_id, title, kind, articles: [{ number, title, clauses }], exhibits: [{ number, title, content }] }` */
function view(c: ContractView) {
  return {
    contract_id: c.contract_id,
    title: c.title,
    kind: c.kind,
    articles: c.articles.map((a) => ({ number: a.number, title: a.title, clauses: a.clauses })),
    exhibits: c.exhibits.map((e) => ({ number: e.number, title: e.title, content: e.content })),
  };
}

/**
 * Contracts of the tenant. Every action is the policy's (auth/resource-access.ts, `contracts:<action>`): the
 * tenant's users read, list and upload contracts; only the uploader, an admin token or an API key deletes one.
 */
@ApiErrors()
@Controller('v1/contracts')
export class ContractsController {
  constructor(
    private readonly contracts: ContractsService,
    private readonly config: AppConfig,
    private readonly access: ResourceAccess,
  ) {}

  /**
   * Upload a contract as JSON `{ title, content, kind? }` or as multipart (`file` + `title`, `kind?`):
   * 422 when it is not a parsable contract, 413 over MAX_CONTRACT_CHARS (uploads over 8 MB are cut off by multer).
   */
  @Post()
  @HttpCode(201)
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiRequestBody('CreateContractDto')
  @ApiCreatedResponse({ type: ContractDto })
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }))
  async create(
    @Body(body(CreateContractSchema)) contract: CreateContractDto,
    @Tenant() tenantId: string,
    @UploadedFile() file?: { buffer: Buffer; originalname: string },
  ) {
    // multipart fields and files are read after the global input guard: the same checks here
    const fieldProblem = findBadInput(contract, this.config.security.maxJsonDepth);
    if (fieldProblem) throw new DomainException('INVALID_INPUT', fieldProblem, 400);
    const fileProblem = file ? uploadProblem(file.buffer) : null;
    if (fileProblem) throw new DomainException('UNSUPPORTED_MEDIA_TYPE', fileProblem, 415);
    const content = file ? file.buffer.toString('utf8') : contract.content;
    if (!content?.trim()) throw new BadRequestException('content must not be empty (JSON `content` or a multipart `file`)');
    await this.access.authorize('contracts', 'create', { title: contract.title, kind: contract.kind });
    return view(
      await this.contracts.ingest({ title: contract.title, kind: contract.kind, content }, this.config.maxContractChars, tenantId),
    );
  }

  @Get()
  @ApiQueryParams(ContractListQuerySchema)
  @ApiOkResponse({ type: ContractListDto })
  async list(@Tenant() tenantId: string, @Query(query(ContractListQuerySchema)) filter: ContractListQueryDto) {
    return { contracts: await this.contracts.list(filter.kind, tenantId, await this.access.authorize('contracts', 'search', {})) };
  }

  @Get(':id')
  @ApiOkResponse({ type: ContractDto })
  async get(@Param('id') id: string, @Tenant() tenantId: string) {
    if (!isUuid(id)) throw new ContractNotFoundException(id.slice(0, 128));
    return view(await this.contracts.visible(id, tenantId, await this.access.authorize('contracts', 'read', { contract_id: id })));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  async remove(@Param('id') id: string, @Tenant() tenantId: string): Promise<void> {
    if (!isUuid(id)) throw new ContractNotFoundException(id.slice(0, 128));
    await this.contracts.delete(id, tenantId, await this.access.authorize('contracts', 'delete', { contract_id: id }));
  }
}
