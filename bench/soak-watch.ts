import { readFileSync } from 'node:fs';

/* What the soak (soak.ts) reads of the service: its /metrics page and its heap snapshots. */

export interface MetricsSample {
  atSeconds: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** p99 of the event-loop delay since the previous scrape (prom-client resets it at each). */
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
}

/** The unlabelled samples of a Prometheus text page, by metric name. */
function parsePrometheus(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*) (\S+)$/.exec(line);
    if (match) values.set(match[1], Number(match[2]));
  }
  return values;
}

export async function scrape(baseUrl: URL, token: string): Promise<Map<string, number>> {
  const res = await fetch(new URL('/metrics', baseUrl), {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parsePrometheus(await res.text());
}

export interface HeapGrowth {
  kind: string;
  countDelta: number;
  bytesDelta: number;
  endBytes: number;
}

/** Objects by kind (constructor name for objects and closures, V8's type otherwise): count and self size. */
function heapCensus(file: string): Map<string, { count: number; bytes: number }> {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const census = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const t = types[snapshot.nodes[i + type]];
    const kind =
      t === 'object' || t === 'closure' ? `${t === 'closure' ? 'closure ' : ''}${snapshot.strings[snapshot.nodes[i + name]]}` : `(${t})`;
    const entry = census.get(kind) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += snapshot.nodes[i + size];
    census.set(kind, entry);
  }
  return census;
}

export function heapGrowth(startFile: string, endFile: string, top = 10): HeapGrowth[] {
  const start = heapCensus(startFile);
  const end = heapCensus(endFile);
  const kinds = new Set([...start.keys(), ...end.keys()]);
  return [...kinds]
    .map((kind) => {
      const a = start.get(kind) ?? { count: 0, bytes: 0 };
      const b = end.get(kind) ?? { count: 0, bytes: 0 };
      return { kind, countDelta: b.count - a.count, bytesDelta: b.bytes - a.bytes, endBytes: b.bytes };
    })
    .sort((x, y) => y.bytesDelta - x.bytesDelta)
    .slice(0, top);
}
