import { FeedbackEvent } from './feedback-event.entity';

export const FEEDBACK_ENTITIES = [FeedbackEvent];
