/*
 * What the service answered, in a few words: the hostile-neighbour bench counts its attackers'
 * answers by these labels. Pure: it reads the HTTP status and body text and nothing else.
 */

/** One answer as the client saw it: an HTTP status and body, or a network error's code. */
export type SeenAnswer = { status: number; text: string } | { networkError: string };

export interface AnswerClass {
  /** `ok`, `GraphQL <code>`, `JSON-RPC <code>`, `[tool_memory <what>]`, `HTTP <status> <code>`, `network <code>`; several joined by ` + `. */
  label: string;
  /** A 5xx, or an error coded as the service's internal error: never an acceptable answer. */
  serverError: boolean;
}

const BRACKETED = '[tool_memory ';
const INTERNAL_CODE = 'INTERNAL_SERVER_ERROR';
/** JSON-RPC's "internal error". */
const JSON_RPC_INTERNAL = -32603;
const HEAD_MAX_CHARS = 40;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `[tool_memory not read: …]` → `[tool_memory not read]`: the words before the first colon, quote or bracket. */
export function bracketedLabel(text: string): string {
  const rest = text.slice(BRACKETED.length);
  const end = rest.search(/[:"\]]/);
  const head = (end === -1 ? rest : rest.slice(0, end)).trim().slice(0, HEAD_MAX_CHARS);
  return `${BRACKETED}${head}]`;
}

/** A tool's answer text: bracketed text by its head, anything else `ok`. */
const textLabel = (text: string): string => (text.startsWith(BRACKETED) ? bracketedLabel(text) : 'ok');

function parse(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** The service's own code of an error body: GraphQL `extensions.code`, else JSON-RPC `data.code`, else the JSON-RPC code. */
function errorCode(body: Json | undefined): string | null {
  if (!isObject(body)) return null;
  const graphql = Array.isArray(body.errors) ? body.errors[0] : undefined;
  if (isObject(graphql) && isObject(graphql.extensions) && typeof graphql.extensions.code === 'string') return graphql.extensions.code;
  if (isObject(body.error)) {
    const data = body.error.data;
    if (isObject(data) && typeof data.code === 'string') return data.code;
    if (typeof body.error.code === 'number') return String(body.error.code);
  }
  return null;
}

/** A GraphQL answer: each error by its code, each top-level field (alias) by its value. */
function graphqlLabels(body: JsonObject, labels: Set<string>): boolean {
  let serverError = false;
  for (const error of Array.isArray(body.errors) ? body.errors : []) {
    const code =
      isObject(error) && isObject(error.extensions) && typeof error.extensions.code === 'string' ? error.extensions.code : 'no code';
    labels.add(`GraphQL ${code}`);
    serverError ||= code === INTERNAL_CODE;
  }
  if (isObject(body.data)) {
    for (const value of Object.values(body.data)) {
      if (value !== null) labels.add(typeof value === 'string' ? textLabel(value) : 'ok');
    }
  }
  return serverError;
}

/** A JSON-RPC answer, one message or a batch: each error by its code, each tool result by its text. */
function jsonRpcLabels(messages: Json[], labels: Set<string>): boolean {
  let serverError = false;
  for (const message of messages) {
    if (!isObject(message)) continue;
    if (isObject(message.error)) {
      labels.add(`JSON-RPC ${errorCode(message) ?? 'no code'}`);
      serverError ||= message.error.code === JSON_RPC_INTERNAL || errorCode(message) === INTERNAL_CODE;
    } else if (isObject(message.result)) {
      const content = Array.isArray(message.result.content) ? message.result.content : [];
      const text = content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
      const label = textLabel(text);
      if (message.result.isError !== true) labels.add(label);
      else labels.add(label === 'ok' ? 'MCP tool error' : `MCP tool error ${label}`);
    }
  }
  return serverError;
}

/**
 * A large GraphQL answer of data alone, none of it bracketed: `ok`, known by two scans of its text.
 * Parsing a 16 MB answer would hold the bench's own event loop for a third of a second, and the
 * bystander's calls it times would seem to wait on the service meanwhile.
 */
const LARGE_ANSWER_CHARS = 1 << 20;

function plainLargeData(answer: { status: number; text: string }): boolean {
  const { status, text } = answer;
  return (
    status === 200 &&
    text.length > LARGE_ANSWER_CHARS &&
    text.startsWith('{"data":{') &&
    !text.includes('"errors":') &&
    !text.includes(BRACKETED)
  );
}

export function classifyAnswer(answer: SeenAnswer): AnswerClass {
  if ('networkError' in answer) return { label: `network ${answer.networkError}`, serverError: false };
  if (plainLargeData(answer)) return { label: 'ok', serverError: false };
  const body = parse(answer.text);
  if (answer.status !== 200) {
    const code = errorCode(body);
    return { label: `HTTP ${answer.status}${code === null ? '' : ` ${code}`}`, serverError: answer.status >= 500 };
  }
  const labels = new Set<string>();
  let serverError = false;
  if (Array.isArray(body)) serverError = jsonRpcLabels(body, labels);
  else if (isObject(body) && body.jsonrpc !== undefined) serverError = jsonRpcLabels([body], labels);
  else if (isObject(body)) serverError = graphqlLabels(body, labels);
  if (labels.size === 0) labels.add(body === undefined ? 'HTTP 200 not JSON' : 'HTTP 200 empty');
  return { label: [...labels].sort().join(' + '), serverError };
}
