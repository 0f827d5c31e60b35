import type { StructuredToolInterface } from '@langchain/core/tools';

/** Where the tool registry finds a host's tools: provided by the embeddable module (embed/host-catalog.ts). */
export const HOST_TOOLS = Symbol('HOST_TOOLS');

export interface HostTools {
  tools(): StructuredToolInterface[];
}
