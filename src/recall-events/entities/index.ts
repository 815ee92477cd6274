import { RecallEvent } from './recall-event.entity';

export const RECALL_EVENT_ENTITIES = [RecallEvent];

export { RecallEvent };
