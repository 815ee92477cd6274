/**
 * The production-like set-up's traces (docker-compose.yml, deploy/otel, deploy/grafana): the
 * service sends OTLP/HTTP where the collector listens, the collector passes spans to where Tempo
 * listens, and Grafana reads Tempo where it answers (R-OP-8). Docker is not run here; the wiring is
 * read from the files as Compose, the collector, Tempo and Grafana would read them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const read = <T>(path: string): T => parse(readFileSync(join(ROOT, path), 'utf8')) as T;

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: string[] | Record<string, unknown>;
}
interface Compose {
  services: Record<string, ComposeService>;
}
interface Endpoint {
  endpoint?: string;
}
interface Collector {
  receivers: { otlp: { protocols: { http?: Endpoint; grpc?: Endpoint } } };
  exporters: Record<string, Endpoint & { tls?: { insecure?: boolean } }>;
  service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } };
}
interface Tempo {
  server: { http_listen_port: number };
  distributor: { receivers: { otlp: { protocols: { grpc?: Endpoint; http?: Endpoint } } } };
}
interface Datasources {
  datasources: { type: string; url: string }[];
}

const compose = read<Compose>('docker-compose.yml');
const portOf = (address: string | undefined) => Number(/:(\d+)\/?$/.exec(address ?? '')?.[1]);
/** The file a service mounts at `target`, as a path in the repository. */
function mounted(service: ComposeService, target: string): string {
  const volume = service.volumes?.find((v) => v.split(':')[1] === target);
  if (volume === undefined) throw new Error(`nothing is mounted at ${target}`);
  return volume.split(':')[0].replace(/^\.\//, '');
}
const dependsOn = (service: ComposeService) =>
  Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});

describe('docker-compose traces: service → collector → Tempo → Grafana (R-OP-8)', () => {
  const { 'recall-ledger': app, 'otel-collector': collectorService, tempo: tempoService, grafana } = compose.services;
  const collectorFile = mounted(collectorService, collectorService.command![0].split('=')[1]);
  const collector = read<Collector>(collectorFile);
  const tempo = read<Tempo>(mounted(tempoService, tempoService.command![0].split('=')[1]));

  it('R-OP-8 every image is pinned to a version', () => {
    for (const service of [collectorService, tempoService, grafana]) expect(service.image).toMatch(/:\d+\.\d+\.\d+$/);
  });

  it('R-OP-8 the service sends OTLP/HTTP to the port the collector receives it on, on every interface', () => {
    const endpoint = new URL(app.environment!.OTEL_EXPORTER_OTLP_ENDPOINT);
    expect(endpoint.hostname).toBe('otel-collector');
    const http = collector.receivers.otlp.protocols.http?.endpoint;
    expect(http).toMatch(/^0\.0\.0\.0:/);
    expect(Number(endpoint.port)).toBe(portOf(http));
    expect(app.environment!.OTEL_TRACES_SAMPLER).toBe('parentbased_traceidratio');
  });

  it('R-OP-8 the collector traces pipeline passes spans to the port Tempo receives OTLP/gRPC on', () => {
    const { receivers, exporters } = collector.service.pipelines.traces;
    expect(receivers).toEqual(['otlp']);
    expect(exporters).toHaveLength(1);
    const exporter = collector.exporters[exporters[0]];
    const [host, port] = (exporter.endpoint ?? '').split(':');
    expect(host).toBe('tempo');
    const grpc = tempo.distributor.receivers.otlp.protocols.grpc?.endpoint;
    expect(grpc).toMatch(/^0\.0\.0\.0:/);
    expect(Number(port)).toBe(portOf(grpc));
    expect(exporter.tls?.insecure).toBe(true);
    expect(dependsOn(collectorService)).toContain('tempo');
  });

  it('R-OP-8 Grafana has a Tempo data source at the port Tempo answers queries on', () => {
    const sources = read<Datasources>(join(mounted(grafana, '/etc/grafana/provisioning'), 'datasources', 'tempo.yml')).datasources;
    const source = sources.find((s) => s.type === 'tempo');
    expect(source).toBeDefined();
    const url = new URL(source!.url);
    expect(url.hostname).toBe('tempo');
    expect(Number(url.port)).toBe(tempo.server.http_listen_port);
    expect(dependsOn(grafana)).toContain('tempo');
  });
});
