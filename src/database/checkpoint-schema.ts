/** LangGraph's checkpoint (and store) tables live in their own schema, created by `PostgresSaver.setup()`. */
export const CHECKPOINT_SCHEMA = 'langgraph';
