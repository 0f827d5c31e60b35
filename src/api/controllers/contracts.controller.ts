import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ContractNotFoundException, ContractsService, type ContractView } from '../../knowledge/contracts/contracts.service';
import { CreateContractDto } from '../dto/contract.dto';
import { isUuid } from './ids';

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

@Controller('v1/contracts')
export class ContractsController {
  constructor(
    private readonly contracts: ContractsService,
    private readonly config: AppConfig,
  ) {}

  /** Upload a contract (422 when it is not a parsable contract, 413 over MAX_CONTRACT_CHARS). */
  @Post()
  @HttpCode(201)
  async create(@Body() body: CreateContractDto) {
    return view(await this.contracts.ingest(body, this.config.maxContractChars));
  }

  @Get()
  async list(@Query('kind') kind?: string) {
    return { contracts: await this.contracts.list(kind === 'user' || kind === 'standard' ? kind : undefined) };
  }

  @Get(':id')
  async get(@Param('id') id: string) {
    if (!isUuid(id)) throw new ContractNotFoundException(id);
    return view(await this.contracts.get(id));
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    if (!isUuid(id)) throw new ContractNotFoundException(id);
    await this.contracts.delete(id);
  }
}
