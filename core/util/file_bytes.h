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
// The file read into a heap buffer, always (what loading a file conventionally costs: the
// benchmarks' baseline).
SharedBytes read_file_copy(const std::string& path);

}  // namespace vq
