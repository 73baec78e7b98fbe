// Yielding to the worker's event loop between the steps of a long job (a slice of the weight
// analysis, a step of the alignment): queued messages and frees run, then the job goes on.
// Not setTimeout(0): timers nested five deep are clamped to 4 ms (browsers, per the HTML spec), and a
// job's steps chain that deep at once; on the segmentation pair each core idled about a tenth of
// its time that way, between slices of 30-100 ms. In a browser, a message on a channel of its own is
// a task like a timer's, queued behind the messages already waiting, and is not clamped. Node's
// worker threads (the VS Code extension host) use setImmediate, which runs after the event loop's
// pending messages on every port: a channel there is one port among others, and its message was
// answered before the parent's and the helper's.

const immediate = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate;

/** Resolves in a later task: what was queued meanwhile (freeing, messages) runs first. */
export const nextTask: () => Promise<void> = immediate
  ? () => new Promise<void>((resolve) => immediate(resolve))
  : (() => {
    const channel = new MessageChannel();
    const waiting: Array<() => void> = [];
    channel.port1.onmessage = () => waiting.shift()?.();
    return () => new Promise<void>((resolve) => {
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
  })();
