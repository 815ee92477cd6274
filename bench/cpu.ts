import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time so far, in ms: the service's process, this (load-generating) process, and the PostgreSQL it started. */
export interface CpuSnapshot {
  serviceMs: number;
  clientMs: number;
  postgresMs: number;
}

let servicePid: number | undefined;

/** The service runs in a child process (harness.ts); its CPU is read from /proc. */
export function watchServiceCpu(pid: number): void {
  servicePid = pid;
}

export function cpuNow(): CpuSnapshot {
  const usage = process.cpuUsage();
  return {
    serviceMs: servicePid === undefined ? 0 : processCpuMs(servicePid),
    clientMs: (usage.user + usage.system) / 1000,
    postgresMs: postgresCpuMs(),
  };
}

/** A process's CPU time so far (user + system), in ms; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU of the PostgreSQL this process started (Linux /proc; 0 elsewhere): the postmaster's own and
 * its reaped children's (cutime, cstime), plus utime+stime of its live children.
 */
function postgresCpuMs(): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  const parent = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      parent.set(Number(entry), Number(fields[1]));
      if (name !== 'postgres') continue;
      const own = Number(fields[11]) + Number(fields[12]);
      // The postmaster is our child; the backends and workers are its children.
      const reaped = Number(fields[1]) === process.pid ? Number(fields[13]) + Number(fields[14]) : 0;
      cpu.set(Number(entry), (own + reaped) * TICK_MS);
    } catch {
      // the process ended meanwhile
    }
  }
  let total = 0;
  for (const [pid, ms] of cpu) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === process.pid) {
        total += ms;
        break;
      }
    }
  }
  return total;
}
