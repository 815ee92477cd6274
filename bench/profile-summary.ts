import { readFileSync } from 'node:fs';

/*
 * Self time of a V8 CPU profile (`.cpuprofile`, from `--cpu-prof` or BENCH_PROFILE=1), grouped
 * by package, and its top frames. Idle time is left out, so the shares are of busy time.
 * `node -r @swc-node/register bench/profile-summary.ts <file.cpuprofile> [topFrames] [requests]`
 * (with the number of requests served while profiling, each package also in µs per request).
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface SelfTime {
  name: string;
  ms: number;
}

export interface ProfileSummary {
  busyMs: number;
  byPackage: SelfTime[];
  topFrames: SelfTime[];
}

/** Packages that belong together under one name in the table (the layers of a request). */
const GROUPS: [RegExp, string][] = [
  [
    /^(express|router|body-parser|raw-body|on-finished|finalhandler|send|serve-static|type-is|content-type|iconv-lite|qs|accepts|mime-types|negotiator|depd|http-errors|@as-integrations\/express5)$/,
    'express',
  ],
  [/^@apollo\//, 'apollo'],
  [/^(graphql|@graphql-tools\/.*|graphql-parse-resolve-info|@escape\.tech\/graphql-armor.*)$/, 'graphql'],
  [/^@nestjs\//, 'nest'],
  [/^(@mikro-orm\/.*|knex)$/, 'mikro-orm/knex'],
  [/^(pg|pg-.*|postgres-.*)$/, 'pg'],
  [/^(pino|pino-.*|sonic-boom|thread-stream)$/, 'pino'],
  [/^gpt-tokenizer$/, 'gpt-tokenizer'],
  [/^(@opentelemetry\/.*|require-in-the-middle|import-in-the-middle|shimmer)$/, 'opentelemetry'],
  [/^(class-validator|class-transformer|validator)$/, 'class-validator'],
];

/** The package a script belongs to: ours (src/), a node_modules package (grouped), node's own, or V8's pseudo-frames. */
function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : 'node (native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    return GROUPS.find(([pattern]) => pattern.test(name))?.[1] ?? name;
  }
  if (url.startsWith('node:') || !url.includes('/')) return 'node (internals)';
  if (/\/(src|bench)\//.test(url)) return 'ours';
  return 'other';
}

export function summarizeProfile(profile: CpuProfile, topFrames = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // Each sample counts for the mean interval. Not the delta to the next sample: when the machine
  // is saturated the sampler is descheduled too, and that wait would be charged to whatever frame
  // happened to be sampled last.
  const meanUs = profile.samples.length > 0 ? (profile.endTime - profile.startTime) / profile.samples.length : 0;
  const selfUs = new Map<number, number>();
  for (const id of profile.samples) selfUs.set(id, (selfUs.get(id) ?? 0) + meanUs);
  const packages = new Map<string, number>();
  const frames = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    busyUs += us;
    const pkg = packageOf(url, functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
    const file = url.slice(url.lastIndexOf('/') + 1);
    const frame = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''} [${pkg}]`;
    frames.set(frame, (frames.get(frame) ?? 0) + us);
  }
  const sorted = (map: Map<string, number>, limit: number): SelfTime[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, us]) => ({ name, ms: us / 1000 }));
  return { busyMs: busyUs / 1000, byPackage: sorted(packages, Number.MAX_SAFE_INTEGER), topFrames: sorted(frames, topFrames) };
}

/** The summary as text; with `requests`, each package also as ms per request. */
export function formatSummary(summary: ProfileSummary, requests?: number): string {
  const share = (ms: number) => `${((ms / summary.busyMs) * 100).toFixed(1).padStart(5)}%`;
  const perRequest = (ms: number) => (requests ? `  ${((ms / requests) * 1000).toFixed(0).padStart(5)} µs/req` : '');
  const lines = [`busy ${summary.busyMs.toFixed(0)} ms${requests ? ` over ${requests} requests` : ''}; self time by package:`];
  for (const { name, ms } of summary.byPackage) lines.push(`  ${share(ms)}  ${ms.toFixed(0).padStart(7)} ms${perRequest(ms)}  ${name}`);
  lines.push('top frames (self time):');
  for (const { name, ms } of summary.topFrames) lines.push(`  ${share(ms)}  ${ms.toFixed(0).padStart(7)} ms  ${name}`);
  return lines.join('\n');
}

if (require.main === module) {
  const [file, top, requests] = process.argv.slice(2);
  if (!file) {
    console.error('usage: profile-summary <file.cpuprofile> [topFrames] [requests]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(formatSummary(summarizeProfile(profile, top ? Number(top) : 15), requests ? Number(requests) : undefined));
}
