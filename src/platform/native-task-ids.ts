import { createHash } from 'node:crypto';

type Uuid5 = (name: string, namespace: string) => string;

/** the checkpoint package's exports, as LangGraph's CommonJS build reads them at each call */
interface CheckpointExports {
  uuid5: Uuid5 & { [NATIVE]?: true };
}

const NATIVE = Symbol.for('agent-orchestrator.nativeTaskIds');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** RFC 4122 version 5 (SHA-1) of `name` in `namespace`, with Node's own SHA-1 */
export function nativeUuid5(name: string, namespace: string): string {
  const h = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  let s = '';
  for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[h[i]];
  return s;
}

/**
 * LangGraph names every task of every step with a UUIDv5 of the step's checkpoint id (`uuid5` of
 * @langchain/langgraph-checkpoint), computed by @langchain/core's SHA-1 written in JavaScript: 7 µs a call, some
 * twenty calls in a react turn. Installed, the same ids come from Node's SHA-1 (2 µs). A namespace that is not a
 * UUID goes to the original, which reads such a string its own way.
 *
 * Relies on (@langchain/langgraph 1.7.3, @langchain/langgraph-checkpoint 1.2.2; the canary is
 * native-task-ids.spec.ts): LangGraph's CommonJS build reading `uuid5` from the checkpoint package's exports object
 * at each call (`(0, _langchain_langgraph_checkpoint.uuid5)(…)`), that property being writable, and the original
 * computing RFC 4122's version 5 of the name's UTF-8 bytes. Installed by installPlatformPatches; installed once.
 */
export function nativeTaskIds(target = require('@langchain/langgraph-checkpoint') as CheckpointExports): boolean {
  if (target.uuid5[NATIVE]) return true;
  const original = target.uuid5;
  const patched = ((name: string, namespace: string) =>
    typeof name === 'string' && typeof namespace === 'string' && UUID.test(namespace)
      ? nativeUuid5(name, namespace)
      : original(name, namespace)) as CheckpointExports['uuid5'];
  patched[NATIVE] = true;
  target.uuid5 = patched;
  return target.uuid5 === patched;
}
