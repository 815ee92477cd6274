import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/*
 * CPU time, not wall time: the machine's two cores are shared, and a thread's own CPU time is
 * what contention disturbs least. Linux only: /proc/<pid>/task/<tid>/schedstat gives each
 * thread's time on a CPU in nanoseconds (the 10 ms ticks of /proc/<pid>/stat are too coarse).
 */

/** CPU time of each thread or process, in ms, by id. */
type Times = Map<number, number>;

export interface CpuReading {
  /** The service's main thread: its event loop. */
  loop: number;
  /** The service's worker threads (piscina pools), by thread id. */
  workers: Times;
  /** The service's other threads (V8's garbage collector and compiler, libuv's pool), by thread id. */
  helpers: Times;
  /** PostgreSQL's client backends (and their parallel workers), by process id. */
  postgres: Times;
}

export interface CpuSpent {
  loopMs: number;
  workerMs: number;
  helperMs: number;
  postgresMs: number;
}

/** The service's CPU per thread kind and PostgreSQL's backends' CPU, read before and after a request. */
export class ServiceClock {
  constructor(private readonly servicePid: number) {}

  read(): CpuReading {
    const workers: Times = new Map();
    const helpers: Times = new Map();
    let loop = 0;
    for (const tid of numericEntries(`/proc/${this.servicePid}/task`)) {
      const ms = schedstatMs(`/proc/${this.servicePid}/task/${tid}/schedstat`);
      if (ms === undefined) continue;
      if (tid === this.servicePid) loop = ms;
      else if (readText(`/proc/${this.servicePid}/task/${tid}/comm`) === 'WorkerThread') workers.set(tid, ms);
      else helpers.set(tid, ms);
    }
    return { loop, workers, helpers, postgres: postgresBackends() };
  }

  /** What was spent between two readings; a thread or backend that started in between counts from zero. */
  static spent(before: CpuReading, after: CpuReading): CpuSpent {
    return {
      loopMs: after.loop - before.loop,
      workerMs: grown(before.workers, after.workers),
      helperMs: grown(before.helpers, after.helpers),
      postgresMs: grown(before.postgres, after.postgres),
    };
  }

  /** Starts a new peak: the service's peak resident memory is set back to its present size. */
  resetPeakMemory(): number {
    writeFileSync(`/proc/${this.servicePid}/clear_refs`, '5');
    return this.memoryKiB().rss;
  }

  /** The service's resident memory now and at its peak since the last reset, in KiB. */
  memoryKiB(): { rss: number; peak: number } {
    const status = readText(`/proc/${this.servicePid}/status`) ?? '';
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { rss: field('VmRSS'), peak: field('VmHWM') };
  }
}

/** This process's main thread's CPU time so far, in ms: for the service's functions called in process. */
export function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

function grown(before: Times, after: Times): number {
  let total = 0;
  for (const [id, ms] of after) total += ms - (before.get(id) ?? 0);
  return total;
}

// PostgreSQL's own processes, whose work is no statement's: their titles start with these.
const BACKGROUND = /^postgres: (checkpointer|background writer|walwriter|autovacuum|logical replication|archiver|io worker|walsummarizer)/;

/** PostgreSQL backends descended from this process (the bench's embedded server), by pid. */
function postgresBackends(): Times {
  const parentOf = new Map<number, number>();
  const candidates: number[] = [];
  for (const pid of numericEntries('/proc')) {
    const stat = readText(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    const close = stat.lastIndexOf(')');
    parentOf.set(pid, Number(stat.slice(close + 2).split(' ')[1]));
    if (stat.slice(stat.indexOf('(') + 1, close) === 'postgres') candidates.push(pid);
  }
  const backends: Times = new Map();
  for (const pid of candidates) {
    const title = readText(`/proc/${pid}/cmdline`)?.replaceAll('\0', ' ') ?? '';
    if (!title.startsWith('postgres: ') || BACKGROUND.test(title) || !descendsFromUs(pid, parentOf)) continue;
    const ms = schedstatMs(`/proc/${pid}/schedstat`);
    if (ms !== undefined) backends.set(pid, ms);
  }
  return backends;
}

function descendsFromUs(pid: number, parentOf: Map<number, number>): boolean {
  for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === process.pid) return true;
  return false;
}

function schedstatMs(path: string): number | undefined {
  const text = readText(path);
  return text === undefined ? undefined : Number(text.split(' ')[0]) / 1e6;
}

function numericEntries(folder: string): number[] {
  try {
    return readdirSync(folder)
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** A /proc file's text, or undefined once its process or thread is gone. */
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}
