import { existsSync } from 'node:fs';
import path from 'node:path';

import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';

import { AppConfig } from '../config/app-config';
import { ApiExcludeController } from '../platform/openapi-decorators';
import { ConsoleFileNotFoundException, ConsoleNotBuiltException } from './console.exceptions';

/** The files the console build writes; nothing else in the folder is served. */
const FILES = new Set(['index.html', 'app.js', 'app.css']);

/**
 * The web console: static files built by `npm run build` (console/build.js), served without a key — the page
 * asks for the key and sends it with every API call.
 */
@ApiExcludeController()
@Controller('console')
export class ConsoleController {
  constructor(private readonly config: AppConfig) {}

  @Get()
  index(@Res() res: Response): void {
    this.send(res, 'index.html');
  }

  @Get(':file')
  file(@Param('file') file: string, @Res() res: Response): void {
    if (!FILES.has(file)) throw new ConsoleFileNotFoundException(file);
    this.send(res, file);
  }

  private send(res: Response, name: string): void {
    const dir = this.config.consoleDir;
    if (!existsSync(path.join(dir, 'index.html'))) throw new ConsoleNotBuiltException();
    // the page is rebuilt with the app: let browsers revalidate rather than cache a stale bundle
    res.sendFile(name, { root: dir, headers: { 'cache-control': 'no-cache' } });
  }
}
