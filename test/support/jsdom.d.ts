/**
 * The one jsdom constructor the useStream test uses. Not @types/jsdom: it pulls the DOM lib into the whole
 * project's type check, which changes Node's own types (fetch bodies, Blob) for every other file.
 */
declare module 'jsdom' {
  export class JSDOM {
    constructor(html: string, options?: { url?: string });
    readonly window: Window & typeof globalThis & { document: { createElement(tag: string): any; body: any } };
  }
}
