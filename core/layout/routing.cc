#include "layout/routing.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace vq::layout {
namespace {

// A port request: edge `edge` wants a port on `node`'s side, keyed by where its route goes next
// (x of the next point, then an id); requests with equal keys share a port.
struct PortRequest {
  std::int32_t node;
  double key_x;
  std::int32_t key_id;
  std::int32_t edge;
  bool operator<(const PortRequest& o) const {
    return std::tie(node, key_x, key_id, edge) < std::tie(o.node, o.key_x, o.key_id, o.edge);
  }
};

// Port x for each request's edge, spread evenly over the node's width in key order.
void assign_ports(std::vector<PortRequest>& requests, const Coordinates& c, const std::vector<double>& width,
                  std::vector<double>& port_x) {
  std::sort(requests.begin(), requests.end());
  for (std::size_t begin = 0; begin < requests.size();) {
    std::size_t end = begin;
    std::int32_t ports = 0;
    for (; end < requests.size() && requests[end].node == requests[begin].node; ++end)
      if (end == begin || requests[end].key_x != requests[end - 1].key_x || requests[end].key_id != requests[end - 1].key_id) ++ports;
    const std::int32_t v = requests[begin].node;
    std::int32_t port = -1;
    for (std::size_t i = begin; i < end; ++i) {
      if (i == begin || requests[i].key_x != requests[i - 1].key_x || requests[i].key_id != requests[i - 1].key_id) ++port;
      port_x[requests[i].edge] = c.x[v] - width[v] / 2 + width[v] * (port + 1) / (ports + 1);
    }
    begin = end;
  }
}

// Appends points, dropping repeats and the middle one of three on one vertical line.
class Polyline {
 public:
  explicit Polyline(std::vector<double>& out) : out_(out), start_(out.size()) {}
  void add(double x, double y) {
    const std::size_t count = (out_.size() - start_) / 2;
    if (count >= 1 && out_[out_.size() - 2] == x && out_.back() == y) return;
    if (count >= 2 && out_[out_.size() - 2] == x && out_[out_.size() - 4] == x) {
      out_.back() = y;
      return;
    }
    out_.push_back(x);
    out_.push_back(y);
  }
  // Reverses the points added since construction (for edges drawn against the layering).
  void reverse() {
    const std::size_t count = (out_.size() - start_) / 2;
    for (std::size_t i = 0; i < count / 2; ++i) {
      std::swap(out_[start_ + 2 * i], out_[out_.size() - 2 - 2 * i]);
      std::swap(out_[start_ + 2 * i + 1], out_[out_.size() - 1 - 2 * i]);
    }
  }

 private:
  std::vector<double>& out_;
  std::size_t start_;
};

}  // namespace

Routes route_edges(const LayeredGraph& g, const Coordinates& c, const EdgeSet& edges, const std::vector<double>& visible_width,
                   const std::vector<double>& visible_height, const Options& options) {
  const std::int32_t m = static_cast<std::int32_t>(edges.size());

  // Ports. Out: keyed by the first point below the node; in: keyed by the last point above it. A
  // stub is keyed as if it went straight down (up) from the node's centre, which puts it between the
  // routes leaving (entering) to the left and to the right, so they do not cut through it. A node's
  // out-stubs share one port; each in-stub has its own.
  std::vector<PortRequest> out_requests, in_requests;
  for (std::int32_t e = 0; e < m; ++e) {
    if (edges.flags[e] & kSelfLoop) continue;
    if (edges.flags[e] & kStub) {
      out_requests.push_back({edges.from[e], c.x[edges.from[e]], -1, e});
      in_requests.push_back({edges.to[e], c.x[edges.to[e]], -1 - e, e});
      continue;
    }
    const std::int32_t first_hop = g.path_dummies[e] > 0 ? g.path_dummy[e] : g.path_bottom[e];
    const std::int32_t last_hop = g.path_dummies[e] > 0 ? g.path_dummy[e] + g.path_dummies[e] - 1 : g.path_top[e];
    out_requests.push_back({g.path_top[e], c.x[first_hop], first_hop, e});
    in_requests.push_back({g.path_bottom[e], c.x[last_hop], last_hop, e});
  }
  std::vector<double> out_x(m, 0), in_x(m, 0);
  assign_ports(out_requests, c, visible_width, out_x);
  assign_ports(in_requests, c, visible_width, in_x);

  // Self-loops of one node are nested in its reserved room.
  std::vector<std::int32_t> loops(g.real_count, 0), loop_index(m, 0);
  for (std::int32_t e = 0; e < m; ++e)
    if (edges.flags[e] & kSelfLoop) loop_index[e] = loops[edges.from[e]]++;

  // Along a chain of dummies only the bends matter (the polyline merges straight runs): next_bend[d]
  // is the first dummy after d in d's chain whose x differs from its predecessor's, or the chain's
  // end. An edge on a shared trunk then costs its bends, not its span.
  const std::int32_t n = g.node_count();
  std::vector<std::uint8_t> chain_start(n, 0);
  for (std::int32_t e = 0; e < m; ++e)
    if (g.path_dummies[e] > 0) chain_start[g.path_dummy[e]] = 1;
  std::vector<std::int32_t> next_bend(n, n);
  for (std::int32_t d = n - 2; d >= g.real_count; --d)
    next_bend[d] = chain_start[d + 1] ? n : (c.x[d + 1] != c.x[d] ? d + 1 : next_bend[d + 1]);

  Routes r;
  r.point_begin.reserve(static_cast<std::size_t>(m) + 1);
  const double stub = std::min(options.stub_length, options.rank_sep / 2);
  auto bottom_of = [&](std::int32_t v) { return c.y[v] + visible_height[v] / 2; };
  auto top_of = [&](std::int32_t v) { return c.y[v] - visible_height[v] / 2; };
  for (std::int32_t e = 0; e < m; ++e) {
    r.point_begin.push_back(static_cast<std::int32_t>(r.points.size() / 2));
    Polyline line(r.points);
    const std::uint8_t flags = edges.flags[e];
    if (flags & kSelfLoop) {
      const std::int32_t v = edges.from[e];
      const double side = c.x[v] + visible_width[v] / 2;
      const double out = side + options.loop_size * (loop_index[e] + 1) / (loops[v] + 1);
      const double rise = visible_height[v] / 4;
      line.add(side, c.y[v] - rise);
      line.add(out, c.y[v] - rise);
      line.add(out, c.y[v] + rise);
      line.add(side, c.y[v] + rise);
    } else if (flags & kStub) {
      // Two pieces; they must not merge, so they are written without the collinearity rule.
      const double pieces[8] = {out_x[e], bottom_of(edges.from[e]), out_x[e], bottom_of(edges.from[e]) + stub,
                                in_x[e], top_of(edges.to[e]) - stub, in_x[e], top_of(edges.to[e])};
      r.points.insert(r.points.end(), pieces, pieces + 8);
    } else {
      const std::int32_t top = g.path_top[e], bottom = g.path_bottom[e];
      line.add(out_x[e], bottom_of(top));
      line.add(out_x[e], c.band_bottom[g.layer[top]]);
      if (g.path_dummies[e] > 0) {
        const std::int32_t first = g.path_dummy[e], last = first + g.path_dummies[e] - 1;
        line.add(c.x[first], c.band_top[g.layer[first]]);
        for (std::int32_t d = next_bend[first]; d <= last; d = next_bend[d]) {
          line.add(c.x[d - 1], c.band_bottom[g.layer[d - 1]]);
          line.add(c.x[d], c.band_top[g.layer[d]]);
        }
        line.add(c.x[last], c.band_bottom[g.layer[last]]);
      }
      line.add(in_x[e], c.band_top[g.layer[bottom]]);
      line.add(in_x[e], top_of(bottom));
      if (flags & kReversed) line.reverse();
    }
  }
  r.point_begin.push_back(static_cast<std::int32_t>(r.points.size() / 2));

  for (std::int32_t e = 0; e < m; ++e) {
    for (std::int32_t p = r.point_begin[e] + 1; p < r.point_begin[e + 1]; ++p) {
      if ((edges.flags[e] & kStub) && p == r.point_begin[e] + 2) continue;  // the gap between the two pieces
      const double dx = r.points[2 * p] - r.points[2 * p - 2], dy = r.points[2 * p + 1] - r.points[2 * p - 1];
      r.total_length += std::sqrt(dx * dx + dy * dy);
    }
  }
  return r;
}

}  // namespace vq::layout
