import { Annotation } from '@langchain/langgraph';

/** A channel that keeps the last value written, `initial()` until then (a state.ts owns its defaults this way). */
export const channel = <T>(initial: () => T) => Annotation<T>({ reducer: (_previous: T, next: T) => next, default: initial });
