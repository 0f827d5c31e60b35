/**
 * Types of `@langchain/langgraph/zod` for the typecheck of these graphs: this project's `moduleResolution` does
 * not read package subpath exports, and a tsconfig `paths` entry would also redirect tsx — the reference
 * server of the conformance harness would then load the `.d.cts` instead of the module.
 */
declare module '@langchain/langgraph/zod' {
  export const registry: import('zod').core.$ZodRegistry<Record<string, unknown>>;
}
