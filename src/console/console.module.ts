import { Module } from '@nestjs/common';

import { ConsoleController } from './console.controller';

/** The web page at /console (built to static files at build time; see console/). */
@Module({ controllers: [ConsoleController] })
export class ConsoleModule {}
