import { Conversation } from './conversation.entity';
import { MessageToolResult } from './message-tool-result.entity';
import { Message } from './message.entity';
import { TeamSummaryRules } from './team-summary-rules.entity';

export const TOOL_RESULT_ENTITIES = [Conversation, Message, MessageToolResult, TeamSummaryRules];
