import { Controller, Get, Header } from '@nestjs/common';

import { ApiExcludeController } from '../platform/openapi-decorators';

/** A node graph in the console's colours: three nodes, two edges. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#1d2330"/>
<path d="M16 10v6M16 16l-7 6M16 16l7 6" stroke="#9aa3b2" stroke-width="2" fill="none"/>
<circle cx="16" cy="8" r="4" fill="#ffd866"/><circle cx="9" cy="23" r="4" fill="#6aa9ff"/><circle cx="23" cy="23" r="4" fill="#dff3e4"/>
</svg>
`;

/** `/favicon.ico`, which browsers ask for on every page of the service (the console, /docs): an SVG icon, public. */
@ApiExcludeController()
@Controller()
export class FaviconController {
  @Get('favicon.ico')
  @Header('content-type', 'image/svg+xml')
  @Header('cache-control', 'public, max-age=86400')
  icon(): string {
    return ICON;
  }
}
