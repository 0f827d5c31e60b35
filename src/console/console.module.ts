import { Module } from '@nestjs/common';

import { ConsoleController } from './console.controller';
import { FaviconController } from './favicon.controller';

/** The web page at /console (built to static files at build time; see console/) and the service's /favicon.ico. */
@Module({ controllers: [ConsoleController, FaviconController] })
export class ConsoleModule {}
