import path from 'node:path';

import { Body, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';

import { DomainException } from '../../core/errors';
import { dialectOf } from '../../http/dialect';
import { httpErrorOf } from '../../http/error-mapping';
import { sendError } from '../../http/error-rendering';
import { ZodPipe } from '../zod-body.pipe';
import { escapeHtml, jsStringInAttribute } from './html-escape';
import { UiBundles, type UiFiles } from './ui-bundles';

const UiRequest = z.object({ name: z.string() });

class UiNotFoundException extends DomainException {
  constructor(graph: string) {
    super('UI_NOT_FOUND', `UI not found for graph "${graph.slice(0, 128)}"`, 404);
  }
}

/** The bundler's error (paths, source excerpts) is logged when the bundle fails at start; the client learns only that. */
class UiBundleFailedException extends DomainException {
  constructor(graph: string) {
    super('UI_BUNDLE_FAILED', `the UI of graph "${graph.slice(0, 128)}" could not be built; see the service log`, 500);
  }
}

/** A bundle file the graph's UI has not (LangGraph Platform's text). */
class UiFileNotFoundException extends DomainException {
  constructor(name: string) {
    super('UI_FILE_NOT_FOUND', `the UI bundle has no file "${name.slice(0, 128)}"`, 404, undefined, 'File not found');
  }
}

/** A bundle file's path whose escapes do not decode (LangGraph Platform's text). */
class MalformedUiPathException extends DomainException {
  constructor() {
    super('INVALID_PATH', 'the UI file path holds a malformed percent escape', 400, undefined, 'Malformed path');
  }
}

/**
 * `POST /ui/{graph}` (`client["~ui"].getComponent`, `LoadExternalComponent`): the HTML that loads the graph's
 * UI bundle and renders the named component — its stylesheets and script under the URL the client used
 * (Host, or X-Forwarded-Proto / X-Forwarded-Host from a proxy), as LangGraph Platform answers. Behind the API key.
 */
@Controller('ui')
export class UiController {
  constructor(private readonly bundles: UiBundles) {}

  @Post(':graph')
  @HttpCode(200)
  async component(
    @Param('graph') graph: string,
    @Body(new ZodPipe(UiRequest)) body: z.infer<typeof UiRequest>,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const files = await bundleOf(this.bundles, graph);
    // everything interpolated is escaped: the host is the client's (Host, X-Forwarded-Host), the name its body's
    const base = escapeHtml(`${clientOrigin(req)}/ui/${encodeURIComponent(graph)}`);
    const html: string[] = [];
    for (const name of files.keys()) {
      if (path.extname(name) === '.css') html.push(`<link rel="stylesheet" href="${base}/${escapeHtml(name)}" />`);
    }
    const js = [...files.keys()].find((name) => path.extname(name) === '.js');
    if (js) {
      const global = `__LGUI_${graph.replace(/[^a-zA-Z0-9]/g, '_')}`;
      const render = `${global}.render(${jsStringInAttribute(body.name)}, "{{shadowRootId}}")`;
      html.push(`<script src="${base}/${escapeHtml(js)}" onload='${render}'></script>`);
    }
    res.type('text/html').send(html.join('\n'));
  }
}

async function bundleOf(bundles: UiBundles, graph: string): Promise<UiFiles> {
  const pending = bundles.files(graph);
  if (!pending) throw new UiNotFoundException(graph);
  try {
    return await pending;
  } catch {
    throw new UiBundleFailedException(graph);
  }
}

function firstOf(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value)?.split(',')[0].trim() || undefined;
}

/** the scheme and host the client called: a proxy's forwarded ones, else this request's */
function clientOrigin(req: Request): string {
  const proto = firstOf(req.headers['x-forwarded-proto']) ?? req.protocol;
  const host = firstOf(req.headers['x-forwarded-host']) ?? req.headers.host ?? 'localhost';
  return `${proto === 'https' ? 'https' : 'http'}://${host}`;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

/**
 * `GET /ui/{graph}/{file}`: the bundle's files, public as on LangGraph Platform (a page's `<script src>` sends no
 * API key; they hold the component's code, no tenant's data). Mounted before authentication, so it answers
 * every such path itself (404 for a file the bundle has not) and opens nothing else; loadable from the page
 * of another origin (Cross-Origin-Resource-Policy: cross-origin).
 */
export function uiAssets(bundles: UiBundles) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const match = /^\/ui\/([^/]+)\/([^/]+)$/.exec(req.path);
    if (!match || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    let graph: string, name: string;
    try {
      [graph, name] = [decodeURIComponent(match[1]), decodeURIComponent(match[2])];
    } catch {
      return sendError(res, httpErrorOf(new MalformedUiPathException()), dialectOf(req.path));
    }
    bundleOf(bundles, graph)
      .then((files) => {
        const file = files.get(name);
        if (!file) return sendError(res, httpErrorOf(new UiFileNotFoundException(name)), dialectOf(req.path));
        res
          .status(200)
          .set('Content-Type', TYPES[path.extname(name)] ?? 'application/octet-stream')
          .set('Cross-Origin-Resource-Policy', 'cross-origin')
          .send(Buffer.from(file));
      })
      .catch((err: unknown) => {
        const known = err instanceof DomainException ? err : new UiBundleFailedException(graph);
        sendError(res, httpErrorOf(known), dialectOf(req.path));
      });
  };
}
