// The requests of the models a request names by URL, sent as soon as the request reaches the
// worker: while the core is still starting (the page opened with ?float=&quant=), or while an
// earlier request runs, the server is already answering, and all of a request's files come at once
// rather than one after the other. Only the headers are awaited here; the body stays in the
// network's hands until load() reads it into the core's memory.
import { isStream, type FileSource, type FileStream, type RequestMessage } from '../protocol/messages';

interface Started {
  response: Promise<Response>;
  abort: AbortController;
}

const started = new WeakMap<FileStream, Started>();

function urlSourcesOf(message: RequestMessage): FileStream[] {
  // Model files only: external data is read by range when its weights are (range_files.ts), never
  // fetched whole.
  const sources: FileSource[] = message.method === 'open' ? [message.params.first, message.params.second, ...(message.params.third ? [message.params.third] : [])]
    : message.method === 'openModel' ? [message.params.file] : [];
  return sources.filter((f): f is FileStream => isStream(f) && f.url !== undefined);
}

/** Starts the fetches of the request's URL files. */
export function prefetchUrls(message: RequestMessage): void {
  for (const f of urlSourcesOf(message)) {
    if (started.has(f)) continue;
    const abort = new AbortController();
    const response = fetch(f.url!, { signal: abort.signal });
    response.catch(() => {});  // seen when the request runs (fetchSource), or never if it is dropped
    started.set(f, { response, abort });
  }
}

/** Ends the fetches of a request dropped before it ran. */
export function dropPrefetched(message: RequestMessage): void {
  for (const f of urlSourcesOf(message)) {
    started.get(f)?.abort.abort();
    started.delete(f);
  }
}

/** The response for a URL file: the one started ahead (once: a body is read once), or a new fetch. */
export function fetchSource(f: FileStream): Promise<Response> {
  const ahead = started.get(f);
  started.delete(f);
  return ahead?.response ?? fetch(f.url!);
}
