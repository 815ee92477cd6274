import { countTokens } from '../../src/common/text/tokenizer';
import type { ConcreteFormat } from '../../src/compaction/history/history.types';
import { isProblem } from '../../src/compaction/history/history.types';
import { readHistory } from '../../src/compaction/history/read-history';
import type { AnthropicMessage } from '../../test/fixtures/agent-trace.fixture';
import { anthropicTraceIn } from '../../test/fixtures/history-formats.fixture';
import { type RequestMeasure, RequestMeter } from './prompt-cache';
import type { CompactionSettings, Strategy } from './strategies';
import type { TraceStep } from './trace';

/** The service as the client reaches it: compactMessages and recall_tool_result. */
export interface LedgerPort {
  /** compactMessages(messages, settings).messages in `format`. */
  compact(messages: object[], format: ConcreteFormat, settings: CompactionSettings): Promise<object[]>;
  /** recallToolResult(memId): FULL, or the matches of `query`. */
  recall(memId: string, query: string | null): Promise<string>;
}

export interface ReplayOutcome {
  requests: RequestMeasure[];
  /** Calls of recall_tool_result the model made (stubs it needed to read again), and their answers' tokens. */
  recallCalls: number;
  recallAnswerTokens: number;
  /** Tokens the model wrote (notes, call arguments, answers), counted as plain text. */
  outputTokens: number;
}

const RECALL_TOOL = 'recall_tool_result';
const MEM_ID = /mem_[a-z2-7]{16}/;

/**
 * Replays the trace in `format` under `strategy`: before each model call the client builds its
 * request (the history, compacted or not, see strategies.ts), and the request is measured for the
 * cache. A recall step becomes a call of recall_tool_result, answered by the service, when the
 * result it needs is a stub in the request the model was sent; when the result is there whole the
 * model needs no call.
 */
export async function replay(
  steps: readonly TraceStep[],
  format: ConcreteFormat,
  strategy: Strategy,
  ledger: LedgerPort,
  meter: RequestMeter,
): Promise<ReplayOutcome> {
  const history: AnthropicMessage[] = [];
  const outcome: ReplayOutcome = { requests: [], recallCalls: 0, recallAnswerTokens: 0, outputTokens: 0 };
  /** The call id of every tool result in the history, in order: a result's place in any format's reading. */
  const resultIds: string[] = [];
  let sentEntries = 0;
  let view: object[] = [];
  let request: { length: number; messages: object[] } | null = null;

  const requestNow = async (): Promise<object[]> => {
    if (request?.length === history.length) return request.messages;
    const entries = anthropicTraceIn(format, history);
    const appended = entries.slice(sentEntries);
    sentEntries = entries.length;
    const input = strategy.client === 'view' ? [...view, ...appended] : entries;
    const messages = strategy.compaction === null ? input : await ledger.compact(input, format, strategy.compaction);
    view = messages;
    request = { length: history.length, messages };
    return messages;
  };
  const modelCall = async (produced: AnthropicMessage): Promise<void> => {
    outcome.requests.push(meter.measure(await requestNow()));
    outcome.outputTokens += outputTokensOf(produced);
    history.push(produced);
  };

  for (const step of steps) {
    switch (step.kind) {
      case 'user':
        history.push({ role: 'user', content: step.text });
        break;
      case 'say':
        await modelCall({ role: 'assistant', content: step.text });
        break;
      case 'tool':
        await modelCall(assistantCall(step.note, step.id, step.name, step.input));
        history.push(toolResult(step.id, step.result, step.isError, step.userNote));
        resultIds.push(step.id);
        break;
      case 'recall': {
        const memId = stubMemId(await requestNow(), format, resultIds.indexOf(step.target));
        if (memId === null) break;
        const input = step.query === null ? { mem_id: memId, format: 'full' } : { mem_id: memId, query: step.query };
        await modelCall(assistantCall(step.note, step.id, RECALL_TOOL, input));
        const answer = await ledger.recall(memId, step.query);
        outcome.recallCalls++;
        outcome.recallAnswerTokens += countTokens(answer);
        history.push(toolResult(step.id, answer, false, null));
        resultIds.push(step.id);
        break;
      }
    }
  }
  return outcome;
}

function assistantCall(note: string, id: string, name: string, input: Record<string, unknown>): AnthropicMessage {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text: note },
      { type: 'tool_use', id, name, input },
    ],
  };
}

function toolResult(id: string, result: string, isError: boolean, userNote: string | null): AnthropicMessage {
  const block: Record<string, unknown> = { type: 'tool_result', tool_use_id: id, content: result };
  if (isError) block.is_error = true;
  return { role: 'user', content: userNote === null ? [block] : [block, { type: 'text', text: userNote }] };
}

/** The mem id of the stub standing for the `index`-th tool result of the request, or null when the result is there whole. */
function stubMemId(messages: readonly object[], format: ConcreteFormat, index: number): string | null {
  const history = readHistory(messages, format);
  if (isProblem(history)) throw new Error(`the request does not read as ${format}: ${history.error}`);
  const site = history.reading.results[index];
  if (site === undefined) throw new Error(`the request has no tool result number ${index}`);
  if (!site.isStub || site.output === null) return null;
  const text = site.output.kind === 'text' ? site.output.text : JSON.stringify(site.output.value);
  return MEM_ID.exec(text)?.[0] ?? null;
}

function outputTokensOf(message: AnthropicMessage): number {
  if (typeof message.content === 'string') return countTokens(message.content);
  return message.content.reduce(
    (sum, block) => sum + countTokens(block.type === 'text' ? String(block.text) : `${String(block.name)} ${JSON.stringify(block.input)}`),
    0,
  );
}
