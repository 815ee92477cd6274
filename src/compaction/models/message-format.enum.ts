import { registerEnumType } from '@nestjs/graphql';
import { MessageFormat } from '../history/history.types';

registerEnumType(MessageFormat, {
  name: 'MessageFormat',
  description: 'The wire format of a message history given to compactMessages. R-LG-3',
  valuesMap: {
    AUTO: { description: 'Detected from the tool calls and results in the list.' },
    ANTHROPIC: { description: 'Anthropic Messages: [{role, content: string | blocks, id?}].' },
    OPENAI_CHAT: { description: 'OpenAI Chat Completions messages: tool_calls answered by role "tool" messages.' },
    OPENAI_RESPONSES: { description: 'OpenAI Responses input items: function_call answered by function_call_output.' },
    GEMINI: {
      description: 'Gemini contents: functionCall parts answered by functionResponse parts; a compacted response is {output: stub}.',
    },
    AI_SDK: {
      description:
        'AI SDK ModelMessage list: tool-call parts answered by tool-result parts; a compacted output is {type: "text", value: stub}.',
    },
  },
});

export { MessageFormat };
