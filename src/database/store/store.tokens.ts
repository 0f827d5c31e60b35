/** The service's one LangGraph store (a `BaseStore`): per tenant through `TenantStore` or `StoreService`. */
export const LANGGRAPH_STORE = Symbol('LANGGRAPH_STORE');
