#include "inputs/host_tensor.h"

#include "util/checked_math.h"

namespace vq {

// Whoever builds a HostTensor has checked its dims (bytes_match_shape, or the input readers'
// bounds), so the product cannot overflow here.
std::uint64_t element_count(const HostTensor& t) {
  std::uint64_t n = 1;
  for (std::int64_t d : t.dims) n *= static_cast<std::uint64_t>(d);
  return n;
}

bool bytes_match_shape(const HostTensor& t) {
  if (!t.type) return false;
  const auto n = checked_element_count(t.dims);
  if (!n) return false;
  const auto bytes = raw_payload_bytes(*t.type, *n);
  return bytes && *bytes == t.bytes.size();
}

}  // namespace vq
