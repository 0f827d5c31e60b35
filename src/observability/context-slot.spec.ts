import { describeContextSlot } from '../../test/support/context-slot-cases';

describeContextSlot('as LangChain ships');
