// The memory of the browser a benchmark drives: every Chromium process started with one of the
// harness's profiles (tests/browser/harness.mjs, vq-chromium-*), sampled from /proc.
import { readFileSync, readdirSync } from 'node:fs';

// The Chromium processes started with one of our profiles (vq-chromium-*), with their kind (the --type=
// of the command line; the browser process has none).
export function chromiumProcesses() {
  const out = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes('vq-chromium-')) out.push({ pid, kind: /--type=([a-z-]+)/.exec(cmdline)?.[1] ?? 'browser' });
    } catch { /* the process ended meanwhile */ }
  }
  return out;
}

const kbField = (text, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) * 1024;

/** One /proc field of every process of the run (`file` of /proc/PID), summed: { sum, byKind }. */
function summed(file, field) {
  let sum = 0;
  const byKind = {};
  for (const { pid, kind } of chromiumProcesses()) {
    try {
      const bytes = kbField(readFileSync(`/proc/${pid}/${file}`, 'utf8'), field);
      sum += bytes;
      byKind[kind] = (byKind[kind] ?? 0) + bytes;
    } catch { /* ended */ }
  }
  return { sum, byKind };
}

// Peak memory, two ways:
//   - the peak of the sum of every process's proportional set size (PSS: a page shared by n processes
//     counts 1/n in each), sampled every 250 ms: what the browser holds at its fullest, and where
//     (peakPssByKind: the renderer runs the page and the core's worker);
//   - the sum of every process's own peak resident size (VmHWM), an upper bound: shared pages count
//     once per process, and peaks that never met add up.
export function memorySampler() {
  let peakPss = 0, peakPssByKind = {}, peakAt = 0;
  const started = performance.now();
  const sample = () => {
    const { sum, byKind } = summed('smaps_rollup', 'Pss');
    if (sum > peakPss) {
      peakPss = sum;
      peakPssByKind = byKind;
      peakAt = (performance.now() - started) / 1000;
    }
  };
  const timer = setInterval(sample, 250);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const { sum: hwm, byKind } = summed('status', 'VmHWM');
      return { peakPss, peakPssByKind, peakAt, hwm, byKind };
    },
  };
}

