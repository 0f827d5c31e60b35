import { MessageEntity } from './message.entity';
import { RunEntity } from './run.entity';
import { SessionEntity } from './session.entity';

export { MessageEntity, RunEntity, SessionEntity };
export type { MessageRole } from './message.entity';
export * from './run.entity';
export const ENTITIES = [SessionEntity, MessageEntity, RunEntity];
