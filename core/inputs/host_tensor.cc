#include "inputs/host_tensor.h"

namespace vq {

// Whoever builds a HostTensor has checked its dims (non-negative, bounded count), so the product
// cannot overflow here.
std::uint64_t element_count(const HostTensor& t) {
  std::uint64_t n = 1;
  for (std::int64_t d : t.dims) n *= static_cast<std::uint64_t>(d);
  return n;
}

}  // namespace vq
