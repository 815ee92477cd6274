import {
  ALL_FORMATS,
  HAS_ERROR_FLAG,
  type HistoryLayout,
  oddLayout,
  oddTranscript,
  type ResultRef,
  traceIn,
  type TraceLayout,
  traceLayout,
} from '../../../../test/fixtures/history-formats.fixture';
import { compactPure, PURE_CONVERSATION, PURE_DEFAULTS, type PureCompaction } from '../../../../test/support/compact-pure';
import { derivedCallId } from '../../compaction';
import type { CompactionCandidate } from '../../compaction.types';
import { FORMAT_NAMES } from '../detect-format';
import { type ConcreteFormat, type HistoryProblem, isProblem, MessageFormat, type ToolResultSite } from '../history.types';
import { type History, readHistory } from '../read-history';

/**
 * compactMessages' pure chain (read → candidates → stubs written back) on every wire format, for
 * the product-research trace converted into it and a hand-written transcript with the format's
 * oddities (test/fixtures/history-formats.fixture.ts). The fixture writes down where it put every
 * call and result; these tests hold the adapters to it.
 */

type Entry = Record<string, unknown>;

/** Where, per format, an adapter puts the stub: the value it replaces inside a result's entry. */
interface StubSpot {
  get(entry: object, part: number | null): unknown;
  /** A copy of `entry` with that value swapped for `value`; `entry` itself is left as it is. */
  set(entry: object, part: number | null, value: unknown): object;
  /** The value once compacted. */
  stubbed(stub: string): unknown;
  outputPath(entry: number, part: number | null): string;
  idPath(entry: number, part: number | null, hasId: boolean): string;
}

function partsOf(entry: object, key: string): Entry[] {
  return (entry as Entry)[key] as Entry[];
}

function partOf(entry: object, key: string, part: number | null): Entry {
  return partsOf(entry, key)[part as number];
}

function withPart(entry: object, key: string, part: number | null, next: Entry): object {
  const parts = [...partsOf(entry, key)];
  parts[part as number] = next;
  return { ...entry, [key]: parts };
}

const SPOTS: Record<ConcreteFormat, StubSpot> = {
  [MessageFormat.ANTHROPIC]: {
    get: (entry, part) => partOf(entry, 'content', part).content,
    set: (entry, part, value) => withPart(entry, 'content', part, { ...partOf(entry, 'content', part), content: value }),
    stubbed: (stub) => stub,
    outputPath: (entry, part) => `messages.${entry}.content.${part}.content`,
    idPath: (entry, part) => `messages.${entry}.content.${part}.tool_use_id`,
  },
  [MessageFormat.OPENAI_CHAT]: {
    get: (entry) => (entry as Entry).content,
    set: (entry, _part, value) => ({ ...entry, content: value }),
    stubbed: (stub) => stub,
    outputPath: (entry) => `messages.${entry}.content`,
    idPath: (entry) => `messages.${entry}.tool_call_id`,
  },
  [MessageFormat.OPENAI_RESPONSES]: {
    get: (entry) => (entry as Entry).output,
    set: (entry, _part, value) => ({ ...entry, output: value }),
    stubbed: (stub) => stub,
    outputPath: (entry) => `messages.${entry}.output`,
    idPath: (entry) => `messages.${entry}.call_id`,
  },
  [MessageFormat.GEMINI]: {
    get: (entry, part) => (partOf(entry, 'parts', part).functionResponse as Entry).response,
    set: (entry, part, value) => {
      const old = partOf(entry, 'parts', part);
      return withPart(entry, 'parts', part, { ...old, functionResponse: { ...(old.functionResponse as Entry), response: value } });
    },
    stubbed: (stub) => ({ output: stub }),
    outputPath: (entry, part) => `messages.${entry}.parts.${part}.functionResponse.response`,
    idPath: (entry, part, hasId) => `messages.${entry}.parts.${part}.functionResponse.${hasId ? 'id' : 'name'}`,
  },
  [MessageFormat.AI_SDK]: {
    get: (entry, part) => partOf(entry, 'content', part).output,
    set: (entry, part, value) => withPart(entry, 'content', part, { ...partOf(entry, 'content', part), output: value }),
    stubbed: (stub) => ({ type: 'text', value: stub }),
    outputPath: (entry, part) => `messages.${entry}.content.${part}.output`,
    idPath: (entry, part) => `messages.${entry}.content.${part}.toolCallId`,
  },
};

/**
 * A list of text parts cannot be rebuilt from its joined text alone: the parts are taken as they
 * were sent once their texts are seen to join to the payload.
 */
function textPartsJoiningTo(parts: unknown, payload: unknown, type: string): unknown {
  const list = parts as Entry[];
  expect(list.map((part) => part.type)).toEqual(list.map(() => type));
  expect(list.map((part) => part.text).join('\n')).toBe(payload);
  return list;
}

/** The value a compacted result held, rebuilt from the candidate's payload. */
function payloadValue(format: ConcreteFormat, original: unknown, payload: unknown): unknown {
  switch (format) {
    case MessageFormat.GEMINI:
      return payload;
    case MessageFormat.AI_SDK: {
      const output = original as Entry;
      return output.type === 'content'
        ? { ...output, value: textPartsJoiningTo(output.value, payload, 'text') }
        : { ...output, value: payload };
    }
    case MessageFormat.OPENAI_RESPONSES:
      return typeof original === 'string' ? payload : textPartsJoiningTo(original, payload, 'input_text');
    default:
      return typeof original === 'string' ? payload : textPartsJoiningTo(original, payload, 'text');
  }
}

/** The compacted list with every candidate's payload put back where the adapter put its stub. */
function restored(format: ConcreteFormat, input: readonly object[], result: PureCompaction): object[] {
  const spot = SPOTS[format];
  const list = [...result.messages];
  for (const { site, payload } of result.candidates) {
    const original = spot.get(input[site.entryIndex], site.partIndex);
    list[site.entryIndex] = spot.set(list[site.entryIndex], site.partIndex, payloadValue(format, original, payload));
  }
  return list;
}

function refOf(site: ToolResultSite): ResultRef {
  return { entry: site.entryIndex, part: site.partIndex, callId: site.callId, toolName: site.toolName };
}

function candidateRefs(candidates: readonly CompactionCandidate[]): ResultRef[] {
  return candidates.map((candidate) => refOf(candidate.site));
}

function historyOf(value: unknown, format: MessageFormat = MessageFormat.AUTO): History {
  const history = readHistory(value, format);
  if (isProblem(history)) throw new Error(history.error);
  return history;
}

function problemOf(value: unknown, format: MessageFormat = MessageFormat.AUTO): HistoryProblem {
  const found = readHistory(value, format);
  if (!isProblem(found)) throw new Error(`expected a problem, the list was read as ${found.format}`);
  return found;
}

const LISTS: [string, (format: ConcreteFormat) => object[], (format: ConcreteFormat) => HistoryLayout][] = [
  ['the converted trace', traceIn, traceLayout],
  ['the odd transcript', oddTranscript, oddLayout],
];

/** Per format, one tool-result entry of another format appended to its trace. */
const FOREIGN: Record<ConcreteFormat, { format: ConcreteFormat; entry: object }> = {
  [MessageFormat.ANTHROPIC]: {
    format: MessageFormat.OPENAI_CHAT,
    entry: { role: 'tool', tool_call_id: 'toolu_01Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0', content: '{"categories":[]}' },
  },
  [MessageFormat.OPENAI_CHAT]: {
    format: MessageFormat.OPENAI_RESPONSES,
    entry: { type: 'function_call_output', call_id: 'toolu_01Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0', output: '{"categories":[]}' },
  },
  [MessageFormat.OPENAI_RESPONSES]: {
    format: MessageFormat.GEMINI,
    entry: { role: 'user', parts: [{ functionResponse: { name: 'search_categories', response: { categories: [] } } }] },
  },
  [MessageFormat.GEMINI]: {
    format: MessageFormat.AI_SDK,
    entry: {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'toolu_01Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0',
          toolName: 'search_categories',
          output: { type: 'text', value: '{}' },
        },
      ],
    },
  },
  [MessageFormat.AI_SDK]: {
    format: MessageFormat.ANTHROPIC,
    entry: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0', content: '{}' }] },
  },
};

describe.each(ALL_FORMATS)('%s', (format) => {
  const spot = SPOTS[format];

  describe.each(LISTS)('%s', (list, build, layoutOf) => {
    const layout = layoutOf(format);

    it(`R-LG-3 AUTO detects ${format} and reads every result where the fixture put it`, () => {
      const input = build(format);
      const history = historyOf(input);
      expect(history.format).toBe(format);
      expect(history.reading.results.map(refOf)).toEqual(layout.results);
      expect(history.reading.calls.flatMap((call) => (call.id === null ? [] : [call.id]))).toEqual(layout.callIds);
      expect(history.reading.results.filter((site) => site.isError).map(refOf)).toEqual(layout.errors);
      for (const site of history.reading.results) {
        expect(site.outputPath).toBe(spot.outputPath(site.entryIndex, site.partIndex));
        expect(site.idPath).toBe(spot.idPath(site.entryIndex, site.partIndex, site.callId !== null));
      }
      // Asking for the format by name reads the same.
      expect(historyOf(input, format).reading).toEqual(history.reading);
    });

    it('R-LG-3 replaces exactly the large, older results, with the stub where the format keeps the payload', () => {
      const input = build(format);
      const result = compactPure(input);
      expect(candidateRefs(result.candidates)).toEqual(layout.compacted);
      for (const candidate of result.candidates) {
        const stub = result.stubs.get(candidate.toolUseId) as string;
        expect(spot.get(result.messages[candidate.site.entryIndex], candidate.site.partIndex)).toStrictEqual(spot.stubbed(stub));
      }
    });

    if (list === 'the converted trace') {
      it('R-LG-3 compacts the converted trace to at most 25% of its JSON length', () => {
        const input = build(format);
        const result = compactPure(input);
        expect(JSON.stringify(result.messages).length).toBeLessThanOrEqual(JSON.stringify(input).length * 0.25);
      });
    }

    it('R-LG-3 gives byte-identical output from a fresh copy, and compacting the output again changes nothing', () => {
      const first = compactPure(build(format));
      const second = compactPure(build(format));
      expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
      const snapshot = structuredClone(first.messages);
      const again = compactPure(first.messages);
      expect(again.candidates).toEqual([]);
      expect(again.messages).toBe(first.messages);
      expect(first.messages).toStrictEqual(snapshot);
    });

    it('R-LG-3 keeps every tool-call id of the input unchanged in the output', () => {
      const input = build(format);
      const before = historyOf(input).reading;
      const after = historyOf(compactPure(input).messages).reading;
      expect(after.calls.map((call) => call.id)).toEqual(before.calls.map((call) => call.id));
      expect(after.calls.flatMap((call) => (call.id === null ? [] : [call.id]))).toEqual(layout.callIds);
      expect(after.results.map((site) => site.callId)).toEqual(before.results.map((site) => site.callId));
      expect(after.results.map((site) => site.callId)).toEqual(layout.results.map((ref) => ref.callId));
    });

    it('R-LG-3 changes nothing outside the replaced results: payloads put back give the input, untouched entries are the same objects', () => {
      const input = build(format);
      const result = compactPure(input);
      expect(result.candidates.length).toBeGreaterThan(0);
      expect(restored(format, input, result)).toStrictEqual(input);
      const changed = new Set(result.candidates.map((candidate) => candidate.site.entryIndex));
      expect(result.messages).toHaveLength(input.length);
      result.messages.forEach((entry, index) => {
        if (!changed.has(index)) {
          expect(entry).toBe(input[index]);
          return;
        }
        // A changed entry keeps its keys in the client's order, and shares every part not replaced.
        expect(entry).not.toBe(input[index]);
        expect(Object.keys(entry)).toEqual(Object.keys(input[index]));
        const partsKey = format === MessageFormat.GEMINI ? 'parts' : 'content';
        const replaced = new Set(result.candidates.filter((c) => c.site.entryIndex === index).map((c) => c.site.partIndex));
        if (replaced.has(null)) return;
        partsOf(entry, partsKey).forEach((part, partIndex) => {
          if (!replaced.has(partIndex)) expect(part).toBe(partsOf(input[index], partsKey)[partIndex]);
        });
      });
    });

    it('R-LG-3 leaves error results and excludeTools results untouched', () => {
      const input = build(format);
      const result = compactPure(input);
      const changed = new Set(result.candidates.map((candidate) => candidate.site.entryIndex));
      for (const error of layout.errors) {
        // Its entry may hold compacted results too (Gemini answers parallel calls in one turn).
        if (!changed.has(error.entry)) expect(result.messages[error.entry]).toBe(input[error.entry]);
        expect(spot.get(result.messages[error.entry], error.part)).toBe(spot.get(input[error.entry], error.part));
      }
      const excluded = layout.compacted[0].toolName;
      const kept = compactPure(input, MessageFormat.AUTO, { ...PURE_DEFAULTS, excludeTools: [excluded] });
      expect(candidateRefs(kept.candidates)).toEqual(layout.compacted.filter((ref) => ref.toolName !== excluded));
      for (const ref of layout.results.filter((ref) => ref.toolName === excluded)) {
        expect(spot.get(kept.messages[ref.entry], ref.part)).toBe(spot.get(input[ref.entry], ref.part));
      }
    });

    it('R-LG-3 never mutates its input', () => {
      const input = build(format);
      const snapshot = structuredClone(input);
      compactPure(input);
      compactPure(input, MessageFormat.AUTO, { ...PURE_DEFAULTS, keepLastN: 0, sizeThreshold: 1 });
      compactPure(input, format, { ...PURE_DEFAULTS, excludeTools: [layout.results[0].toolName] });
      expect(input).toStrictEqual(snapshot);
    });
  });

  it(
    HAS_ERROR_FLAG[format]
      ? 'R-LG-3 keeps the trace’s throttled error out, flagged as an error'
      : 'R-LG-3 compacts the trace’s throttled error text like any large result: the format has no error flag',
    () => {
      const layout: TraceLayout = traceLayout(format);
      const refs = candidateRefs(compactPure(traceIn(format)).candidates);
      if (HAS_ERROR_FLAG[format]) {
        expect(layout.errors).toEqual([layout.throttled]);
        expect(refs).toEqual([layout.big]);
      } else {
        expect(layout.errors).toEqual([]);
        expect(refs).toEqual([layout.big, layout.throttled]);
      }
    },
  );

  describe('bad input', () => {
    it('R-LG-3 refuses a result whose call id matches no call, naming the id', () => {
      const input = traceIn(format);
      const first = traceLayout(format).results[0];
      const idKey = {
        ANTHROPIC: 'tool_use_id',
        OPENAI_CHAT: 'tool_call_id',
        OPENAI_RESPONSES: 'call_id',
        GEMINI: 'id',
        AI_SDK: 'toolCallId',
      }[format];
      const entry = input[first.entry] as Entry;
      if (format === MessageFormat.OPENAI_CHAT || format === MessageFormat.OPENAI_RESPONSES) {
        input[first.entry] = { ...entry, [idKey]: 'call_orphan' };
      } else if (format === MessageFormat.GEMINI) {
        const part = partOf(entry, 'parts', first.part);
        input[first.entry] = withPart(entry, 'parts', first.part, {
          ...part,
          functionResponse: { ...(part.functionResponse as Entry), id: 'call_orphan' },
        });
      } else {
        input[first.entry] = withPart(entry, 'content', first.part, { ...partOf(entry, 'content', first.part), [idKey]: 'call_orphan' });
      }
      const found = problemOf(input);
      expect(found.path).toBe(spot.idPath(first.entry, first.part, true));
      expect(found.error).toMatch(
        new RegExp(`^${found.path.replace(/\./g, '\\.')} "call_orphan" answers no .+; send the call with its result, or drop both$`),
      );
      expect(problemOf(input, format)).toEqual(found);
    });

    it('R-LG-3 refuses a list that is no list, and an entry that is no object', () => {
      for (const requested of [MessageFormat.AUTO, format]) {
        expect(problemOf({ messages: traceIn(format) }, requested)).toEqual({
          path: 'messages',
          error: 'messages must be an array (the message list, or the Responses input items)',
        });
        const list: unknown[] = traceIn(format);
        list.push('and then the user said thanks');
        expect(problemOf(list, requested)).toEqual({
          path: `messages.${list.length - 1}`,
          error: `messages.${list.length - 1} must be an object`,
        });
      }
    });

    it('R-LG-3 refuses mixed formats, naming the foreign entry and asking for one format', () => {
      const { entry: foreign, format: foreignFormat } = FOREIGN[format];
      const input = [...traceIn(format), foreign];
      const index = input.length - 1;
      const found = problemOf(input);
      expect(found.path).toBe(`messages.${index}`);
      expect(found.error).toContain(`messages.${index} does not fit the list's format`);
      expect(found.error).toContain(FORMAT_NAMES[format]);
      expect(found.error).toContain(FORMAT_NAMES[foreignFormat]);
      expect(found.error).toContain('send one format and set messageFormat');
      const asked = problemOf(input, format);
      expect(asked.path).toBe(`messages.${index}`);
      expect(asked.error).toContain(`, not ${FORMAT_NAMES[format]}`);
    });

    it('R-LG-3 returns a list with no tool call or result unchanged, as AUTO', () => {
      const trace = traceIn(format);
      const input = [trace[0], trace[trace.length - 1]];
      const result = compactPure(input);
      expect(result.history.format).toBe(MessageFormat.AUTO);
      expect(result.history.adapter).toBeNull();
      expect(result.candidates).toEqual([]);
      expect(result.messages).toBe(input);
    });
  });
});

describe('OpenAI Chat specifics', () => {
  it('R-LG-3 accepts a list whose only assistant message has content null beside its tool_calls', () => {
    const input = [
      { role: 'user', content: 'What is the weather in Lyon?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_W1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_W1', content: '{"temp_c":21,"sky":"clear"}' },
    ];
    const history = historyOf(input);
    expect(history.format).toBe(MessageFormat.OPENAI_CHAT);
    expect(history.reading.calls).toEqual([
      expect.objectContaining({ id: 'call_W1', name: 'get_weather', input: { city: 'Lyon' }, entryIndex: 1 }),
    ]);
    expect(history.reading.results).toEqual([
      expect.objectContaining({ callId: 'call_W1', entryIndex: 2, output: { kind: 'text', text: '{"temp_c":21,"sky":"clear"}' } }),
    ]);
  });
});

describe('Gemini specifics', () => {
  it('R-LG-3 pairs an id-less response with the earliest unanswered id-less call of its name', () => {
    const { candidates } = compactPure(oddTranscript(MessageFormat.GEMINI));
    expect(candidates.map((candidate) => [candidate.site.callId, candidate.toolInput])).toEqual([
      ['k3v9q2xz', { zone: 'A', hours: 48 }],
      [null, { zone: 'B', hours: 48 }],
    ]);
    expect(candidates[1].site.call?.entryIndex).toBe(3);
  });

  it('R-LG-3 pairs an id-less response with a call that has an id, and stores it under that id', () => {
    const input = [
      {
        role: 'model',
        parts: [{ functionCall: { id: 'fc-7', name: 'lookup', args: { q: 'a' } } }, { functionCall: { name: 'lookup', args: { q: 'b' } } }],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'lookup', response: { rows: 'a'.repeat(3000) } } },
          { functionResponse: { name: 'lookup', response: { rows: 'b'.repeat(3000) } } },
        ],
      },
    ];
    const { results } = historyOf(input).reading;
    expect(results.map((result) => [result.callId, result.call?.input])).toEqual([
      ['fc-7', { q: 'a' }],
      [null, { q: 'b' }],
    ]);
  });

  it('R-LG-3 stores an id-less result under a derived id that stays when the client drops earlier entries', () => {
    const full = compactPure(oddTranscript(MessageFormat.GEMINI));
    const trimmed = compactPure(oddTranscript(MessageFormat.GEMINI).slice(2));
    const derived = full.candidates.find((candidate) => candidate.site.callId === null) as CompactionCandidate;
    expect(derived.toolUseId).toMatch(/^call_[0-9a-f]{32}$/);
    expect(derived.toolUseId).toBe(derivedCallId(PURE_CONVERSATION, derived.site));
    const again = trimmed.candidates.find((candidate) => candidate.site.callId === null) as CompactionCandidate;
    expect(again.site.entryIndex).toBe(derived.site.entryIndex - 2);
    expect(again.toolUseId).toBe(derived.toolUseId);
    expect(JSON.stringify(trimmed.messages)).toBe(JSON.stringify(full.messages.slice(2)));
    // Another conversation stores the same call elsewhere.
    expect(derivedCallId('0b6f2a4e-3c1d-4e8f-9a7b-2c5d6e7f8a9b', derived.site)).not.toBe(derived.toolUseId);
  });

  it('R-LG-3 gives the trace’s id-less big result the same derived id once its first exchange is dropped', () => {
    // The first two entries alone cannot go: the third answers the call in the second.
    const full = compactPure(traceIn(MessageFormat.GEMINI));
    const trimmed = compactPure(traceIn(MessageFormat.GEMINI).slice(3));
    const big = traceLayout(MessageFormat.GEMINI).big;
    expect(big.callId).toBeNull();
    expect(full.candidates.map((candidate) => candidate.site.entryIndex)).toEqual([big.entry]);
    expect(trimmed.candidates.map((candidate) => candidate.site.entryIndex)).toEqual([big.entry - 3]);
    expect(trimmed.candidates[0].toolUseId).toBe(full.candidates[0].toolUseId);
    expect(full.candidates[0].toolUseId).toBe(derivedCallId(PURE_CONVERSATION, full.candidates[0].site));
  });

  it('R-LG-3 refuses an id-less response no earlier call of its name answers, naming its name', () => {
    const input = traceIn(MessageFormat.GEMINI);
    const big = traceLayout(MessageFormat.GEMINI).big;
    const entry = input[big.entry] as Entry;
    const part = partOf(entry, 'parts', big.part);
    input[big.entry] = withPart(entry, 'parts', big.part, {
      ...part,
      functionResponse: { ...(part.functionResponse as Entry), name: 'search_catalog' },
    });
    const found = problemOf(input);
    expect(found.path).toBe(`messages.${big.entry}.parts.0.functionResponse.name`);
    expect(found.error).toBe(
      `${found.path} "search_catalog" answers no functionCall of that name before it; send the call with its response, or drop both`,
    );
  });
});

describe('AI SDK specifics', () => {
  it('R-LG-3 refuses a text output whose value is no string, naming the field', () => {
    const input = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_T1', toolName: 'lint', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_T1', toolName: 'lint', output: { type: 'text', value: 42 } }] },
    ];
    expect(problemOf(input)).toEqual({
      path: 'messages.1.content.0.output.value',
      error: 'messages.1.content.0.output.value must be a string',
    });
  });
});
