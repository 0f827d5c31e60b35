import { DomainException } from '../core/errors';

export class ConsoleNotBuiltException extends DomainException {
  constructor() {
    super('CONSOLE_NOT_BUILT', 'the web console is not built: run `npm run build` (or set CONSOLE_DIR)', 404);
  }
}

export class ConsoleFileNotFoundException extends DomainException {
  constructor(file: string) {
    super('NOT_FOUND', `console file ${file.slice(0, 64)} does not exist`, 404);
  }
}
