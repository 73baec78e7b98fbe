// The core's memory made resident before the first real pair needs it, while the worker is idle
// before any request (warm_up.ts). Not while a pair's files arrive: on two cores the writing slowed
// the reading of the ResNet-18 pair from URLs by more than it saved the alignment after. A
// page of fresh wasm memory costs the system a fault and a zero-fill when first written, which on
// this project's 2-core machines made up most of a cold open (ResidentMemory in the core's wrapper
// has the figures); wasm memory never shrinks, so once written it serves every later request.
import type { VisualQuant } from 'visualquant-core';

/**
 * About what a real pair's first open writes, its files included: under Node the whole process was
 * resident at 222 MB after a cold open of the ResNet-18 pair (59 MB of files), 347 MB after the
 * segmentation pair's (119 MB) and 340 MB after the 20,000-node decoder-like pair's (11 MB).
 */
const RESIDENT_BYTES = 256 * 1024 * 1024;
/**
 * Written per task: about 11 ms on a 2-core machine, the longest a request waits for it (pieces of
 * 16 MB made a small pair's open up to 0.1 s later when its files came in the middle of one).
 */
const TOUCH_BYTES = 4 * 1024 * 1024;

/**
 * Writes the memory a piece per task until it is all written or `stop()` is called, then gives it
 * back to the core's allocator, where the next allocations find it; `stop()` gives back what is
 * held at once (call it before the work that is to use that memory). Without room for it, nothing
 * is done: the requests do without.
 */
export function makeMemoryResident(core: VisualQuant): { stop(): void } {
  let memory: ReturnType<VisualQuant['residentMemory']> | null = null;
  let stopped = false;
  const stop = () => {
    stopped = true;
    memory?.free();
    memory = null;
  };
  const touch = () => {
    if (stopped || core.failed) return;
    try {
      memory ??= core.residentMemory(RESIDENT_BYTES);
      if (memory.touch(TOUCH_BYTES)) return void setTimeout(touch, 0);
    } catch {
      // no room: the requests do without
    }
    stop();
  };
  setTimeout(touch, 0);
  return { stop };
}
