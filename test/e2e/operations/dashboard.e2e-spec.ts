/**
 * The provisioned Grafana dashboard (deploy/grafana) only queries metrics the service really
 * serves at /metrics (R-OP-1), feedback metrics included (R-FB-9).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/test-app';

const GRAFANA = join(__dirname, '..', '..', '..', 'deploy', 'grafana');
const DASHBOARD_FILE = join(GRAFANA, 'dashboards', 'recall-ledger.json');
const DATASOURCE_UID = 'prometheus';
/** Metric names of this service and of prom-client's default metrics start with one of these. */
const METRIC_PREFIXES = ['tool_results_', 'recall_', 'process_', 'nodejs_', 'http_'];
const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;

interface Target {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string } | string;
}
interface Panel {
  id?: number;
  type: string;
  title?: string;
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  title: string;
  description?: string;
  schemaVersion: number;
  panels: Panel[];
}

/** Every panel that shows data: rows are layout only, and a collapsed row holds its panels. */
function dataPanels(panels: Panel[]): Panel[] {
  return panels.flatMap((p) => (p.type === 'row' ? dataPanels(p.panels ?? []) : [p]));
}

/** Metric names in a PromQL expression: label values and other strings removed, prefixes kept. */
function metricNamesIn(expr: string): string[] {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  const names = (code.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((token) =>
    METRIC_PREFIXES.some((prefix) => token.startsWith(prefix)),
  );
  return [...new Set(names)];
}

/** What /metrics declares: name → type, from `# TYPE` lines, plus every `# HELP` and sample name. */
function exposition(text: string): { types: Map<string, string>; names: Set<string> } {
  const types = new Map<string, string>();
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)/.exec(line);
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (type) {
      types.set(type[1], type[2]);
      names.add(type[1]);
    } else if (help) names.add(help[1]);
    else if (sample) names.add(sample[1]);
  }
  return { types, names };
}

/** The name /metrics declares for a queried series: `x_bucket`, `x_sum`, `x_count` of a histogram or summary `x` are `x`. */
function declaredName(name: string, types: Map<string, string>): string {
  const base = name.replace(HISTOGRAM_SUFFIX, '');
  return base !== name && ['histogram', 'summary'].includes(types.get(base) ?? '') ? base : name;
}

describe('Grafana dashboard (e2e)', () => {
  let t: TestApp;
  let dashboard: Dashboard;
  let metricsText: string;

  beforeAll(async () => {
    dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
    t = await createTestApp();
    metricsText = (await request(t.app.getHttpServer()).get('/metrics').expect(200)).text;
  });
  afterAll(async () => {
    await t?.close();
  });

  const queriedMetrics = (): Map<string, string[]> => {
    const where = new Map<string, string[]>();
    for (const panel of dataPanels(dashboard.panels)) {
      for (const target of panel.targets ?? []) {
        for (const name of metricNamesIn(target.expr ?? ''))
          where.set(name, [...(where.get(name) ?? []), `${panel.title}/${target.refId}`]);
      }
    }
    return where;
  };

  it('R-OP-1 metric names are read from PromQL without functions, labels or label values', () => {
    expect(
      metricNamesIn('histogram_quantile(0.95, sum by (le) (rate(tool_results_injection_tokens_histogram_bucket{outcome="recall_x"}[5m])))'),
    ).toEqual(['tool_results_injection_tokens_histogram_bucket']);
    expect(metricNamesIn('sum(rate(recall_events_total{outcome="degraded"}[5m])) / sum(rate(recall_events_total[5m]))')).toEqual([
      'recall_events_total',
    ]);
    expect(
      declaredName('tool_results_injection_tokens_histogram_count', new Map([['tool_results_injection_tokens_histogram', 'histogram']])),
    ).toBe('tool_results_injection_tokens_histogram');
    expect(declaredName('nodejs_active_handles_count', new Map())).toBe('nodejs_active_handles_count');
  });

  it('R-OP-1 the dashboard JSON parses, and every panel queries the provisioned Prometheus data source', () => {
    expect(dashboard).toMatchObject({ title: expect.any(String), schemaVersion: expect.any(Number), panels: expect.any(Array) });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const panels = dataPanels(dashboard.panels);
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) {
      expect({ panel: panel.title, hasTargets: (panel.targets?.length ?? 0) > 0 }).toEqual({ panel: panel.title, hasTargets: true });
      for (const target of panel.targets ?? []) {
        const uid = typeof target.datasource === 'object' ? target.datasource.uid : target.datasource;
        expect({ panel: panel.title, refId: target.refId, uid }).toEqual({ panel: panel.title, refId: target.refId, uid: DATASOURCE_UID });
        expect({ panel: panel.title, refId: target.refId, expr: typeof target.expr === 'string' && target.expr.trim() !== '' }).toEqual({
          panel: panel.title,
          refId: target.refId,
          expr: true,
        });
      }
    }
  });

  it('R-OP-1 the provisioned data source and dashboard provider match the dashboard', () => {
    const datasource = readFileSync(join(GRAFANA, 'provisioning', 'datasources', 'prometheus.yml'), 'utf8');
    expect(datasource).toMatch(new RegExp(`^\\s*uid:\\s*${DATASOURCE_UID}\\s*$`, 'm'));
    expect(datasource).toMatch(/^\s*type:\s*prometheus\s*$/m);
    expect(datasource).toMatch(/^\s*url:\s*http:\/\/prometheus:9090\s*$/m);
    const provider = readFileSync(join(GRAFANA, 'provisioning', 'dashboards', 'recall-ledger.yml'), 'utf8');
    expect(provider).toMatch(/^\s*path:\s*\/var\/lib\/grafana\/dashboards\s*$/m);
  });

  it("R-FB-9 R-OP-1 the dashboard covers the service's tool-result, recall and feedback metrics", () => {
    const queried = [...queriedMetrics().keys()].map((name) => declaredName(name, exposition(metricsText).types));
    for (const name of [
      'tool_results_persisted_total',
      'tool_results_injection_tokens',
      'tool_results_injection_tokens_histogram',
      'recall_events_total',
      'recall_feedback_submissions_total',
      'recall_feedback_items_total',
      'recall_feedback_missing_context_total',
      'recall_feedback_irrelevant_total',
    ]) {
      expect(queried).toContain(name);
    }
    expect(dashboard.description).toMatch(/retention/i);
  });

  it('R-FB-9 R-OP-1 every metric a panel queries is served by /metrics', () => {
    const { types, names } = exposition(metricsText);
    const queried = queriedMetrics();
    expect(queried.size).toBeGreaterThan(0);
    const missing = [...queried]
      .filter(([name]) => !names.has(declaredName(name, types)))
      .map(([name, where]) => `${name} (${where.join(', ')})`);
    expect(missing).toEqual([]);
  });
});
