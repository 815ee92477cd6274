import { pickIndex, seededRandom } from './seeded';

export interface ToolCall {
  toolName: string;
  toolInput: Record<string, unknown>;
  /** JSON, or a string for a text result (stored as a JSON string, R-TR-6). */
  toolOutput: unknown;
}

const NAMES = ['Ada', 'Grace', 'Linus', 'Barbara', 'Edsger', 'Margaret', 'Ken', 'Radia', 'Donald', 'Frances', 'Alan', 'Hedy'];
const CITIES = ['Lisbon', 'Oslo', 'Nairobi', 'Osaka', 'Lima', 'Tallinn', 'Denver', 'Hanoi'];
const METRICS = ['active_members', 'revenue', 'churn_rate', 'signups', 'sessions'];
/** The words the seeded payloads are made of (a search for any of them matches). */
export const PAYLOAD_WORDS = [
  'latency',
  'budget',
  'release',
  'index',
  'customer',
  'ledger',
  'snapshot',
  'report',
  'forecast',
  'migration',
  'quota',
  'region',
];

/** A fixed day, never the clock: the payloads are the same on every run. */
function dayBefore(days: number): string {
  return new Date(Date.UTC(2026, 4, 1) - days * 86_400_000).toISOString().slice(0, 10);
}

/** Appends entries until the serialized value reaches about `targetChars`. */
function grow(build: (count: number) => unknown, targetChars: number): unknown {
  let count = 1;
  while (JSON.stringify(build(count + 1)).length <= targetChars) count++;
  return build(count);
}

const SHAPES: ((random: () => number, targetChars: number) => ToolCall)[] = [
  (random, size) => {
    const members = Array.from({ length: 40 }, (_, i) => ({
      name: NAMES[pickIndex(random, NAMES.length)],
      email: `user${Math.floor(random() * 1e6)}@example.com`,
      registered_at: dayBefore(i * 2 + pickIndex(random, 2)),
      plan: random() < 0.3 ? 'pro' : 'free',
    }));
    const output = grow((n) => ({ count: n, last_registered: members[0].registered_at, members: members.slice(0, n) }), size);
    return { toolName: 'query_site_data', toolInput: { target: 'recent_members' }, toolOutput: output };
  },
  (random, size) => {
    const metric = METRICS[pickIndex(random, METRICS.length)];
    const points = Array.from({ length: 60 }, (_, i) => ({ week: dayBefore((59 - i) * 7), value: Math.round(random() * 100000) / 100 }));
    const output = grow(
      (n) => ({ metric, granularity: 'week', change_pct: Math.round(random() * 400 - 200) / 10, points: points.slice(-n) }),
      size,
    );
    return { toolName: 'query_kpi_trend', toolInput: { metric, granularity: 'week' }, toolOutput: output };
  },
  (random, size) => {
    const items = Array.from({ length: 30 }, (_, i) => ({
      product_id: `B0${Math.floor(random() * 1e8)
        .toString(36)
        .toUpperCase()}`,
      title: `${PAYLOAD_WORDS[pickIndex(random, PAYLOAD_WORDS.length)]} keyboard ${i}`,
      price: Math.round(2000 + random() * 18000) / 100,
      rating: Math.round((3 + random() * 2) * 10) / 10,
    }));
    const output = grow((n) => ({ query: 'keyboard', total: 300, items: items.slice(0, n) }), size);
    return { toolName: 'search_products', toolInput: { query: 'keyboard', max_price: 200 }, toolOutput: output };
  },
  (random, size) => {
    const city = CITIES[pickIndex(random, CITIES.length)];
    const days = Array.from({ length: 30 }, (_, i) => ({
      date: dayBefore(-i),
      high_c: Math.round(random() * 30),
      low_c: Math.round(random() * 10),
      summary: PAYLOAD_WORDS[pickIndex(random, PAYLOAD_WORDS.length)],
    }));
    const output = grow((n) => ({ city, days: days.slice(0, n) }), size);
    return { toolName: 'get_weather', toolInput: { city, days: 14 }, toolOutput: output };
  },
  (random, size) => {
    let text = '';
    while (text.length < size) text += `${PAYLOAD_WORDS[pickIndex(random, PAYLOAD_WORDS.length)]} `;
    return {
      toolName: 'fetch_url',
      toolInput: { url: `https://example.com/page/${pickIndex(random, 1000)}` },
      toolOutput: text.slice(0, size).trim(),
    };
  },
];

/** `count` tool calls of about `targetChars` each, from the seed. */
export function payloadVariants(seed: number, count: number, targetChars = 1000): ToolCall[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => SHAPES[i % SHAPES.length](random, targetChars));
}
