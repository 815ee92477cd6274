/*
 * What a model said in one eval case, in the Messages API's own content-block shape, so a
 * live reply and a recorded one are graded by the same code.
 */

interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A result the harness fed back for a recall call (never for a fresh-data call). */
interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
}

export type TranscriptBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export interface TranscriptMessage {
  role: 'assistant' | 'user';
  content: TranscriptBlock[];
}

export interface Transcript {
  caseId: string;
  /** Where the reply came from: the live API, or a file shipped under eval/transcripts. */
  source: 'anthropic' | 'recorded';
  model: string;
  /** The turns after the case's conversation: the model's replies and the recall results fed back. */
  messages: TranscriptMessage[];
  stopReason: string | null;
}

export type Verdict = 'pass' | 'fail';

/** A shipped transcript: a known-good or known-bad answer, with the verdict a grader must reach. */
export interface RecordedTranscript extends Transcript {
  source: 'recorded';
  label: string;
  expected: Verdict;
  /** Why the answer deserves that verdict, in one sentence. */
  why: string;
  /** File name under eval/transcripts, set when loaded. */
  file?: string;
}

/** Everything the model wrote, its text blocks joined by blank lines (tool results excluded). */
export function transcriptText(transcript: Transcript): string {
  return transcript.messages
    .filter((message) => message.role === 'assistant')
    .flatMap((message) => message.content)
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n\n');
}

/** Every tool call the model made, in order. */
export function toolCalls(transcript: Transcript): ToolUseBlock[] {
  return transcript.messages
    .filter((message) => message.role === 'assistant')
    .flatMap((message) => message.content)
    .filter((block): block is ToolUseBlock => block.type === 'tool_use');
}
