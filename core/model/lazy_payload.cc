// LazyPayload's reads by part while sampling, and Model's part reads (model.h says why).
#include <algorithm>

#include "model/model.h"

namespace vq {
namespace {

thread_local unsigned sampled_reads_depth = 0;

}  // namespace

SampledReads::SampledReads() { ++sampled_reads_depth; }
SampledReads::~SampledReads() { --sampled_reads_depth; }
bool SampledReads::active() { return sampled_reads_depth > 0; }

bool Model::payload_by_copy(const Tensor& t) const {
  return t.storage == TensorStorage::External && external && external->reads_by_copy(t.external.path);
}

PayloadBytes Model::payload_part(const Tensor& t, std::uint64_t offset, std::uint64_t length) const {
  return external->read(t.external.path, t.external.offset + offset, length);
}

ByteView LazyPayload::bytes(std::uint64_t from, std::uint64_t to) const {
  if (!whole_.load(std::memory_order_acquire) && SampledReads::active() && model_->payload_by_copy(*tensor_)) {
    const ByteView part = sampled(from, to);
    if (part.data) return part;
  }
  const ByteView v = view_reading(from);
  return ByteView(v.data + from, static_cast<std::size_t>(to - from));
}

// A part of the payload from the spans read so far, or a new aligned span; nothing (a null view)
// once the parts have added up to a quarter of the payload: the caller reads it whole.
ByteView LazyPayload::sampled(std::uint64_t from, std::uint64_t to) const {
  std::lock_guard<std::mutex> lock(sampled_lock_);
  if (auto it = sampled_.upper_bound(from); it != sampled_.begin()) {  // the span starting at or before `from`
    --it;
    const ByteView part = it->second.view();
    if (to <= it->first + part.size) return ByteView(part.data + (from - it->first), static_cast<std::size_t>(to - from));
  }
  const std::uint64_t size = tensor_->external.length;
  if (sampled_total_ >= size / 4) {
    sampled_.clear();
    return ByteView();
  }
  // Aligned: a span read again from the same start (a run past its end) replaces the shorter one,
  // whose bytes no longer count.
  const std::uint64_t begin = from / kSampledSpan * kSampledSpan;
  const std::uint64_t end = std::min(size, (to + kSampledSpan - 1) / kSampledSpan * kSampledSpan);
  if (auto shorter = sampled_.find(begin); shorter != sampled_.end()) sampled_total_ -= shorter->second.view().size;
  const auto at = sampled_.insert_or_assign(begin, model_->payload_part(*tensor_, begin, end - begin)).first;
  sampled_total_ += end - begin;
  const ByteView part = at->second.view();
  return ByteView(part.data + (from - begin), static_cast<std::size_t>(to - from));
}

}  // namespace vq
