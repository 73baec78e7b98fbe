// Yielding to the worker's event loop between the steps of a long job (a slice of the weight
// analysis, a step of the alignment): queued messages and frees run, then the job goes on.
// Not setTimeout(0): timers nested five deep are clamped to 4 ms (browsers, per the HTML spec), and a
// job's steps chain that deep at once; on the segmentation pair each core idled about a tenth of
// its time that way, between slices of 30-100 ms. A message on a channel of its own is a task
// like a timer's, queued behind the messages already waiting, and is not clamped.

const channel = new MessageChannel();
const waiting: Array<() => void> = [];
channel.port1.onmessage = () => waiting.shift()?.();
// Node's worker threads (the VS Code extension host): the port must not keep the thread alive.
(channel.port1 as unknown as { unref?: () => void }).unref?.();

// Node's worker threads (the VS Code extension host) have setImmediate, which runs after the event
// loop's pending messages on every port: a channel's message there is one port among others, and was
// answered before the parent's and the helper's messages.
const immediate = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate;

/** Resolves in a later task: what was queued meanwhile (freeing, messages) runs first. */
export function nextTask(): Promise<void> {
  return new Promise<void>((resolve) => {
    if (immediate) return immediate(resolve);
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}
