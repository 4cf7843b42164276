// Reads CPU time and memory of processes from /proc (Linux only), and samples a set of processes over a window.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let clockTicks;

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat (100 almost everywhere). */
export function clkTck() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * /proc/<pid>/stat: { pid, comm, state, ppid, ticks (utime + stime of all threads), childTicks (cutime + cstime),
 * start (starttime, identifies the process across pid reuse) }, or undefined once the process is gone.
 */
export function readStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm may contain spaces and parentheses: it ends at the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state); field n is rest[n - 3].
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0],
    ppid: Number(rest[1]),
    ticks: Number(rest[11]) + Number(rest[12]),
    childTicks: Number(rest[13]) + Number(rest[14]),
    start: Number(rest[19]),
  };
}

function statusField(pid, field) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

/** Resident set size in KiB (VmRSS), 0 once gone. */
export function readRssKiB(pid) {
  return statusField(pid, 'VmRSS');
}

/** Proportional set size in KiB (shared pages divided among their users), 0 once gone or unreadable. */
export function readPssKiB(pid) {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

/**
 * /proc/<pid>/smaps_rollup in KiB: { rss, pss, private (Private_Clean + Private_Dirty), shared (Shared_Clean +
 * Shared_Dirty: pages some other process maps too) }, all 0 once gone or unreadable.
 */
export function readMemRollupKiB(pid) {
  const out = { rss: 0, pss: 0, private: 0, shared: 0 };
  let text;
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    return out;
  }
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  out.rss = field('Rss');
  out.pss = field('Pss');
  out.private = field('Private_Clean') + field('Private_Dirty');
  out.shared = field('Shared_Clean') + field('Shared_Dirty');
  return out;
}

/** Every live process as pid → stat. */
export function allProcesses() {
  const out = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name));
    if (st !== undefined) out.set(st.pid, st);
  }
  return out;
}

/** The processes descending from `rootPid` (not the root itself), from one /proc scan. */
export function descendants(rootPid, procs = allProcesses()) {
  const children = new Map();
  for (const st of procs.values()) {
    if (!children.has(st.ppid)) children.set(st.ppid, []);
    children.get(st.ppid).push(st);
  }
  const out = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift();
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/**
 * Samples a changing set of processes over a window. `list()` returns [{ pid, role }] for the processes that belong
 * to the subject right now (e.g. the recorder as 'node' and its children as 'ffmpeg'). CPU of a role is the sum over
 * every process seen during the window of (its last sampled ticks − its ticks at the window start, or 0 if it appeared
 * later). Memory is summed per role at every sample: peak and mean over the window are reported.
 */
export class WindowSampler {
  constructor(list, intervalMs = 1000) {
    this.list = list;
    this.intervalMs = intervalMs;
    this.procs = new Map(); // `${pid}:${start}` → { role, first, last, appearedLate }
    this.rssSamples = []; // [{ role → KiB }]
    this.timer = undefined;
  }

  #sample(initial) {
    const rss = {};
    for (const { pid, role } of this.list()) {
      const st = readStat(pid);
      if (st === undefined || st.state === 'Z') continue;
      const key = `${pid}:${st.start}`;
      const seen = this.procs.get(key);
      if (seen === undefined) this.procs.set(key, { pid, role, first: initial ? st.ticks : 0, last: st.ticks, appearedLate: !initial });
      else seen.last = st.ticks;
      rss[role] = (rss[role] ?? 0) + readRssKiB(pid);
    }
    this.rssSamples.push(rss);
  }

  start() {
    this.startedAt = process.hrtime.bigint();
    this.#sample(true);
    this.timer = setInterval(() => this.#sample(false), this.intervalMs);
    return this;
  }

  /** Final sample; returns { seconds, roles: { role → { cpuPercent, rssPeakMiB, rssMeanMiB, pssMiB, uniqueRssMiB, processes, appearedLate } } }. */
  stop() {
    clearInterval(this.timer);
    this.#sample(false);
    const seconds = Number(process.hrtime.bigint() - this.startedAt) / 1e9;
    const roles = {};
    for (const p of this.procs.values()) {
      const r = (roles[p.role] ??= { ticks: 0, processes: 0, appearedLate: 0 });
      r.ticks += p.last - p.first;
      r.processes++;
      if (p.appearedLate) r.appearedLate++;
    }
    for (const [role, r] of Object.entries(roles)) {
      const series = this.rssSamples.map((s) => s[role] ?? 0);
      r.cpuPercent = (r.ticks / clkTck() / seconds) * 100;
      r.rssPeakMiB = Math.max(...series) / 1024;
      r.rssMeanMiB = series.reduce((a, b) => a + b, 0) / series.length / 1024;
      // At the end of the window. PSS: shared pages divided among every process mapping them (also processes outside
      // the role, e.g. other node processes on the machine). uniqueRss: the role's processes' private pages plus their
      // shared pages once (the largest shared set of one process; the role's processes run the same binary and libraries),
      // i.e. what the role keeps resident on a machine of its own.
      const mems = this.list().filter((p) => p.role === role).map((p) => readMemRollupKiB(p.pid));
      r.pssMiB = mems.reduce((a, m) => a + m.pss, 0) / 1024;
      r.uniqueRssMiB = (mems.reduce((a, m) => a + m.private, 0) + Math.max(0, ...mems.map((m) => m.shared))) / 1024;
    }
    return { seconds, roles };
  }
}

/** Machine-wide CPU time from /proc/stat: { busy, total } in ticks (all CPUs; idle + iowait count as not busy). */
export function readMachineTicks() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest time is already in user)
    const idle = v[3] + v[4];
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}
