// Runs independent jobs on the machine's cores, natively; one after another in wasm (the module
// is built without threads). Results are placed by index by the caller, so the output never
// depends on which thread ran what.
#pragma once

#include <cstddef>
#include <functional>

namespace vq {

// Calls job(i) for every i in [0, count), each exactly once, on up to `threads` threads
// (0: the number of cores). Rethrows the exception of the lowest failing index, after every
// job has ended.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& job, unsigned threads = 0);

}  // namespace vq
