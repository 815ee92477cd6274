import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalCase } from './cases';
import { answerRecallCall } from './recall-stand-in';
import { RECALL_TOOL_NAMES } from './tool-definitions';
import { type ConcreteFormat, MessageFormat } from '../src/compaction/history/history.types';
import { RecordedTranscript, Transcript, TranscriptBlock, TranscriptMessage } from './transcript';
import { RECORDING_FORMATS, transcriptMessagesFrom } from './transcript-formats';

/** Answers an eval case: one conversation turn of a model, as a transcript. */
export interface ModelAdapter {
  /** Says where the answers come from, for the report. */
  readonly description: string;
  respond(testCase: EvalCase): Promise<Transcript>;
  /** Every answer the adapter holds for the case (recorded sets hold several); defaults to one `respond`. */
  respondAll?(testCase: EvalCase): Promise<Transcript[]>;
}

export const ANTHROPIC_MESSAGES_URL = 'https://api.anthropic.com/v1/messages';
const ANTHROPIC_VERSION = '2023-06-01';
export const DEFAULT_EVAL_MODEL = 'claude-sonnet-4-5';
const MAX_TOKENS = 1024;
/** Model calls per case: the first answer, plus up to two rounds of recall results fed back. */
const MAX_MODEL_CALLS = 3;
const REQUEST_TIMEOUT_MS = 60_000;

/** The slice of `fetch` the adapter uses, so tests inject a fake and never touch the network. */
export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

export interface AnthropicAdapterOptions {
  apiKey: string;
  model?: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

type ApiMessage = { role: 'user' | 'assistant'; content: string | TranscriptBlock[] };

/**
 * Sends the case the way production would: the system prompt with the injected block, the
 * recall tools and the case's data tool, the conversation so far and the user's message. A
 * recall call is answered from the case's snapshots and the model goes on; a data-tool call
 * ends the turn (its live answer would be invented, and the call itself is what is graded).
 */
export class AnthropicAdapter implements ModelAdapter {
  readonly model: string;
  readonly description: string;
  private readonly fetchImpl: FetchLike;

  constructor(private readonly options: AnthropicAdapterOptions) {
    this.model = options.model ?? DEFAULT_EVAL_MODEL;
    this.description = `Anthropic Messages API, model ${this.model}`;
    this.fetchImpl = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /** The request body of the first call for a case (exported for tests and inspection). */
  buildRequest(testCase: EvalCase, continuation: TranscriptMessage[] = []): Record<string, unknown> {
    const conversation: ApiMessage[] = [
      ...testCase.history.map((turn) => ({ role: turn.role, content: turn.content })),
      { role: 'user', content: testCase.userMessage },
      ...continuation,
    ];
    return {
      model: this.model,
      max_tokens: MAX_TOKENS,
      temperature: 0,
      system: testCase.systemPrompt,
      tools: testCase.tools,
      messages: conversation,
    };
  }

  async respond(testCase: EvalCase): Promise<Transcript> {
    const messages: TranscriptMessage[] = [];
    let stopReason: string | null = null;
    for (let call = 0; call < MAX_MODEL_CALLS; call += 1) {
      const reply = await this.post(this.buildRequest(testCase, messages));
      messages.push({ role: 'assistant', content: reply.content });
      stopReason = reply.stopReason;
      const uses = reply.content.filter((block) => block.type === 'tool_use');
      if (stopReason !== 'tool_use' || uses.length === 0) break;
      if (uses.some((use) => !RECALL_TOOL_NAMES.has(use.name))) break;
      messages.push({
        role: 'user',
        content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: answerRecallCall(testCase, use) })),
      });
    }
    return { caseId: testCase.id, source: 'anthropic', model: this.model, messages, stopReason };
  }

  private async post(body: Record<string, unknown>): Promise<{ content: TranscriptBlock[]; stopReason: string | null }> {
    const response = await this.fetchImpl(ANTHROPIC_MESSAGES_URL, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': this.options.apiKey,
        'anthropic-version': ANTHROPIC_VERSION,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) {
      throw new Error(`Anthropic Messages API answered ${response.status}: ${apiErrorMessage(parsed) ?? text.slice(0, 200)}`);
    }
    return parseMessageResponse(parsed);
  }
}

/** The text and tool_use blocks of a Messages API reply (other block kinds are not graded). */
function parseMessageResponse(body: unknown): { content: TranscriptBlock[]; stopReason: string | null } {
  if (!isObject(body) || !Array.isArray(body.content)) throw new Error('Anthropic Messages API reply has no content array');
  const content: TranscriptBlock[] = [];
  for (const block of body.content) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') content.push({ type: 'text', text: block.text });
    if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      content.push({ type: 'tool_use', id: block.id, name: block.name, input: isObject(block.input) ? block.input : {} });
    }
  }
  return { content, stopReason: typeof body.stop_reason === 'string' ? body.stop_reason : null };
}

const RECORDED_TRANSCRIPTS_DIR = join(__dirname, 'transcripts');

/**
 * Replays the transcripts shipped under eval/transcripts: known-good and known-bad answers,
 * each with the verdict its grader must reach. No network, no key.
 */
export class RecordedAdapter implements ModelAdapter {
  readonly description: string;
  private readonly byCase = new Map<string, RecordedTranscript[]>();

  constructor(readonly dir: string = RECORDED_TRANSCRIPTS_DIR) {
    const files = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
    for (const file of files) {
      const transcript = parseRecordedTranscript(JSON.parse(readFileSync(join(dir, file), 'utf8')), file);
      this.byCase.set(transcript.caseId, [...(this.byCase.get(transcript.caseId) ?? []), transcript]);
    }
    this.description = `recorded transcripts (${files.length} files in eval/transcripts)`;
  }

  all(): RecordedTranscript[] {
    return [...this.byCase.values()].flat();
  }

  async respond(testCase: EvalCase): Promise<Transcript> {
    const [first] = await this.respondAll(testCase);
    return first;
  }

  respondAll(testCase: EvalCase): Promise<RecordedTranscript[]> {
    const recorded = this.byCase.get(testCase.id) ?? [];
    if (recorded.length === 0) return Promise.reject(new Error(`no recorded transcript for eval case ${testCase.id}`));
    return Promise.resolve(recorded);
  }
}

/**
 * Checks a recorded transcript's shape, naming the file when it is wrong. Its `messages` are in
 * `messageFormat` (Anthropic when absent) and are read into the graders' Anthropic shape.
 */
function parseRecordedTranscript(json: unknown, file: string): RecordedTranscript {
  const source = `eval/transcripts/${file}`;
  const problem = (what: string) => new Error(`${source}: ${what}`);
  if (!isObject(json)) throw problem('not a JSON object');
  for (const key of ['caseId', 'label', 'why', 'model'] as const) {
    if (typeof json[key] !== 'string' || json[key] === '') throw problem(`${key} must be a non-empty string`);
  }
  if (json.expected !== 'pass' && json.expected !== 'fail') throw problem('expected must be "pass" or "fail"');
  const format = json.messageFormat ?? MessageFormat.ANTHROPIC;
  if (!RECORDING_FORMATS.includes(format as ConcreteFormat)) {
    throw problem(`messageFormat must be one of ${RECORDING_FORMATS.join(', ')} (absent means ANTHROPIC)`);
  }
  if (!Array.isArray(json.messages) || json.messages.length === 0) throw problem('messages must be a non-empty array');
  const messages = transcriptMessagesFrom(json.messages, format as ConcreteFormat, source);
  if (messages.length === 0) throw problem('messages hold no text, tool call or tool result to grade');
  return {
    caseId: json.caseId as string,
    source: 'recorded',
    model: json.model as string,
    label: json.label as string,
    expected: json.expected,
    why: json.why as string,
    messages,
    stopReason: typeof json.stopReason === 'string' ? json.stopReason : null,
    file,
  };
}

/** The adapter the environment asks for: the live API with a key, the recorded set without. */
export function adapterFromEnv(env: NodeJS.ProcessEnv, fetchImpl?: FetchLike): ModelAdapter {
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (apiKey) return new AnthropicAdapter({ apiKey, model: env.EVAL_MODEL?.trim() || undefined, fetch: fetchImpl });
  return new RecordedAdapter();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function apiErrorMessage(body: unknown): string | null {
  if (!isObject(body) || !isObject(body.error)) return null;
  return typeof body.error.message === 'string' ? body.error.message : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
