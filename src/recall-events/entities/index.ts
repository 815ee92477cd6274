import { RecallEvent } from './recall-event.entity';

export const RECALL_EVENT_ENTITIES = [RecallEvent];

export { RecallAccountColumns } from './recall-account.columns';
export { RecallEvent };
