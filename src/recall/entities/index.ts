import { RecallEvent } from './recall-event.entity';

export const RECALL_ENTITIES = [RecallEvent];
