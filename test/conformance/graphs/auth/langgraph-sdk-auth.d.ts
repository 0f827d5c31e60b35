/**
 * Types of `@langchain/langgraph-sdk/auth` for the typecheck of the auth module: this project's
 * `moduleResolution` does not read package subpath exports (see ../langgraph-zod.d.ts for why not `paths`).
 */
declare module '@langchain/langgraph-sdk/auth' {
  export * from '@langchain/langgraph-sdk/dist/auth/index';
}
