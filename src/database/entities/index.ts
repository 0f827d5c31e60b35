import { MessageEntity } from './message.entity';
import { RunEntity } from './run.entity';
import { SessionEntity } from './session.entity';

export { MessageEntity, RunEntity, SessionEntity };
export * from './run.entity';
export type { MessageRole } from './message.entity';
export const ENTITIES = [SessionEntity, MessageEntity, RunEntity];
