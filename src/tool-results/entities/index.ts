import { Conversation } from './conversation.entity';
import { MessageToolResult } from './message-tool-result.entity';
import { Message } from './message.entity';
import { ToolSummaryRule } from './tool-summary-rule.entity';

export const TOOL_RESULT_ENTITIES = [Conversation, Message, MessageToolResult, ToolSummaryRule];
