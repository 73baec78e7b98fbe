// The core's worker thread in the extension host: the web page's Web Worker script
// (web/src/worker/core_worker.ts), the same protocol and the same code, given the browser globals it
// uses first. One runs per editor tab, so a tab closed frees its models at once.
import './worker_globals';
import '../../../web/src/worker/core_worker';
