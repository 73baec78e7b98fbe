// A file's bytes, read-only, for as long as any SharedBytes copy lives.
#pragma once

#include <string>

#include "util/bytes.h"

namespace vq {

// Natively the file is mapped (MAP_PRIVATE, PROT_READ): the model's payloads are then the page
// cache's own pages, with no copy and no freshly zeroed memory to fault in, which on a virtual
// machine is most of what reading a large file costs. Files that cannot be mapped (pipes, empty
// files, Emscripten's in-memory file system) are read into a buffer instead. Throws Error(Io).
SharedBytes read_file_bytes(const std::string& path);
// A file read piece by piece (external data: one weight at a time): mapped like read_file_bytes,
// but never read in advance, so a weight's pages are read only when it is. Read into a buffer
// where it cannot be mapped; `mapped` (when given) says which it was.
SharedBytes map_file_on_demand(const std::string& path, bool* mapped = nullptr);
// Gives back the whole pages inside `range` of a map_file_on_demand mapping (never of anything
// else: madvise would zero a buffer): they leave the process' resident memory, and are read again
// from the page cache if touched again. What the analysis does after each weight of a model larger
// than the memory it should take. A no-op without mmap.
void release_mapped_pages(ByteView range);
// Asks the kernel to read the pages of `range` of a map_file_on_demand mapping ahead, all at once,
// without waiting for them. A weight read in strides (gathered into another order: a MatMul's [K, N]
// float weight against MatMulNBits' [N, K]) otherwise faults its pages in one small synchronous read
// at a time when they are not cached (the 7B-shaped pair, cold: 139.8 s against 144.4 s without;
// the cache's own readahead already does most of it). A no-op without mmap.
void advise_will_need(ByteView range);
// The file read into a heap buffer, always (what loading a file conventionally costs: the
// benchmarks' baseline).
SharedBytes read_file_copy(const std::string& path);

}  // namespace vq
