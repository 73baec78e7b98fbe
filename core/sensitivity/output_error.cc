#include "sensitivity/output_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vq {
namespace {

NumericTensor numeric(const HostTensor& t, const ActivationQuantizer* codes_of) {
  return {t.type, ByteView(t.bytes.data(), t.bytes.size()), element_count(t), codes_of};
}

// KL(softmax(p) || softmax(q)) of one row of logits, in nats (log-sum-exp, shifted by each max).
double row_kl(const double* p, const double* q, std::size_t n) {
  const double pm = *std::max_element(p, p + n), qm = *std::max_element(q, q + n);
  double ps = 0, qs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ps += std::exp(p[i] - pm);
    qs += std::exp(q[i] - qm);
  }
  const double plog = pm + std::log(ps), qlog = qm + std::log(qs);
  double kl = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double lp = p[i] - plog, lq = q[i] - qlog;
    kl += std::exp(lp) * (lp - lq);
  }
  return std::max(0.0, kl);
}

}  // namespace

bool logits_shaped(const std::vector<std::int64_t>& dims) {
  return (dims.size() == 2 || dims.size() == 3) && dims.back() >= 2;
}

std::optional<double> OutputError::kl(std::size_t output) const {
  if (!kl_rows[output]) return std::nullopt;
  return kl_sum[output] / static_cast<double>(kl_rows[output]);
}

std::optional<double> OutputError::score_db() const {
  std::optional<double> worst;
  for (const ErrorMoments& m : outputs) {
    if (m.count == 0 || m.sum_x2 == 0) continue;
    const double s = m.sum_e2 == 0 ? std::numeric_limits<double>::infinity() : *m.sqnr_db();
    worst = worst ? std::min(*worst, s) : s;
  }
  return worst;
}

std::string add_output_sample(OutputError& error, const std::vector<OutputPair>& pairs, const std::vector<HostTensor>& reference,
                              const std::vector<HostTensor>& other) {
  const auto find = [](const std::vector<HostTensor>& ts, const std::string& name) -> const HostTensor* {
    for (const HostTensor& t : ts)
      if (t.name == name) return &t;
    return nullptr;
  };
  std::vector<ErrorMoments> moments(pairs.size());
  std::vector<double> kl(pairs.size(), 0);
  std::vector<std::uint64_t> rows(pairs.size(), 0);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const HostTensor* x = find(reference, pairs[k].float_name);
    const HostTensor* y = find(other, pairs[k].quant_name);
    if (!x || !y) return "the model output '" + (x ? pairs[k].quant_name : pairs[k].float_name) + "' was not returned";
    const NumericTensor a = numeric(*x, nullptr), b = numeric(*y, pairs[k].codes_of);
    if (a.count != b.count)
      return "the model output '" + pairs[k].quant_name + "' has " + std::to_string(b.count) + " elements, the float model's " +
             std::to_string(a.count);
    moments[k] = error_moments(a, b);
    if (logits_shaped(x->dims) && x->type->kind == ElementKind::Float) {
      const std::size_t n = static_cast<std::size_t>(x->dims.back());
      std::vector<double> p(n), q(n);
      for (std::uint64_t first = 0; first + n <= a.count; first += n) {
        read_numbers(a, first, n, p.data());
        read_numbers(b, first, n, q.data());
        const bool finite = std::all_of(p.begin(), p.end(), [](double v) { return std::isfinite(v); }) &&
                            std::all_of(q.begin(), q.end(), [](double v) { return std::isfinite(v); });
        if (!finite) continue;
        kl[k] += row_kl(p.data(), q.data(), n);
        ++rows[k];
      }
    }
  }
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    error.outputs[k].merge(moments[k]);
    error.kl_sum[k] += kl[k];
    error.kl_rows[k] += rows[k];
  }
  ++error.samples;
  return "";
}

}  // namespace vq
