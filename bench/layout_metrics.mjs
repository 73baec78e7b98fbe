// The one metric function of the layout benchmark, applied alike to every engine's drawing.
//   drawing: { nodes: [x, y, w, h, ...] (centres and sizes, flat),
//              edges: [{ from, to, lines: [[x0, y0, x1, y1, ...], ...] }] } (a stub is two lines)
// Returns:
//   crossings:   points where drawn lines cross properly (touching at an end or running along
//                each other does not count), found with a uniform grid. What is counted is the
//                drawing on the screen: segments drawn on top of each other (edges sharing a trunk,
//                or an orthogonal router's shared runs) are merged first, and each crossing point
//                counts once;
//   edge_length: the summed length of every line;
//   node_overlaps: pairs of node boxes that overlap;
//   edge_node_hits: segments that pass through the inside of a box other than their edge's ends.
// Everything is computed from the geometry alone, whatever the engine's own statistics say.

function orientation(ax, ay, bx, by, cx, cy) {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  return v > 1e-9 ? 1 : v < -1e-9 ? -1 : 0;
}

// The point where segments a and b cross properly, or null.
function properCrossing(a, b) {
  const [ax, ay, bx, by] = a, [cx, cy, dx, dy] = b;
  const o1 = orientation(ax, ay, bx, by, cx, cy), o2 = orientation(ax, ay, bx, by, dx, dy);
  const o3 = orientation(cx, cy, dx, dy, ax, ay), o4 = orientation(cx, cy, dx, dy, bx, by);
  if (o1 === 0 || o2 === 0 || o3 === 0 || o4 === 0 || o1 === o2 || o3 === o4) return null;
  const denominator = (bx - ax) * (dy - cy) - (by - ay) * (dx - cx);
  const t = ((cx - ax) * (dy - cy) - (cy - ay) * (dx - cx)) / denominator;
  return [ax + t * (bx - ax), ay + t * (by - ay)];
}

// Whether segment s enters the inside of the box (shrunk by a small margin: touching is fine).
function segmentEntersBox(s, left, top, right, bottom) {
  const margin = 0.5;
  left += margin; top += margin; right -= margin; bottom -= margin;
  if (left >= right || top >= bottom) return false;
  let [x0, y0, x1, y1] = s;
  let t0 = 0, t1 = 1;
  const dx = x1 - x0, dy = y1 - y0;
  for (const [p, q] of [[-dx, x0 - left], [dx, right - x0], [-dy, y0 - top], [dy, bottom - y0]]) {
    if (p === 0) {
      if (q <= 0) return false;
    } else {
      const r = q / p;
      if (p < 0) { if (r > t1) return false; if (r > t0) t0 = r; } else { if (r < t0) return false; if (r < t1) t1 = r; }
    }
  }
  return t1 - t0 > 1e-9;
}

class Grid {
  constructor(left, top, cell) {
    this.left = left;
    this.top = top;
    this.cell = cell;
    this.cells = new Map();
  }
  key(cx, cy) {
    return cx * 1048576 + cy;
  }
  cellOf(x, y) {
    return [Math.floor((x - this.left) / this.cell), Math.floor((y - this.top) / this.cell)];
  }
  insert(item, left, top, right, bottom) {
    const [c0, r0] = this.cellOf(left, top), [c1, r1] = this.cellOf(right, bottom);
    for (let c = c0; c <= c1; c++) {
      for (let r = r0; r <= r1; r++) {
        const k = this.key(c, r);
        let list = this.cells.get(k);
        if (!list) this.cells.set(k, (list = []));
        list.push(item);
      }
    }
  }
}

// The drawn lines: vertical (horizontal) segments on one x (y) that overlap or touch become one;
// other segments drawn twice are kept once. The first edge's id is kept for each.
function mergeOverlaps(segments) {
  const out = [];
  const seen = new Set();
  const vertical = new Map(), horizontal = new Map();
  for (const s of segments) {
    if (s[0] === s[2]) {
      if (!vertical.has(s[0])) vertical.set(s[0], []);
      vertical.get(s[0]).push([Math.min(s[1], s[3]), Math.max(s[1], s[3]), s[4]]);
    } else if (s[1] === s[3]) {
      if (!horizontal.has(s[1])) horizontal.set(s[1], []);
      horizontal.get(s[1]).push([Math.min(s[0], s[2]), Math.max(s[0], s[2]), s[4]]);
    } else {
      const key = s[0] < s[2] ? `${s[0]},${s[1]},${s[2]},${s[3]}` : `${s[2]},${s[3]},${s[0]},${s[1]}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(s);
      }
    }
  }
  const merge = (lines, make) => {
    for (const [at, intervals] of lines) {
      intervals.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let [low, high, edge] = intervals[0];
      for (const [l, h, e] of intervals.slice(1)) {
        if (l <= high) {
          high = Math.max(high, h);
        } else {
          out.push(make(at, low, high, edge));
          [low, high, edge] = [l, h, e];
        }
      }
      out.push(make(at, low, high, edge));
    }
  };
  merge(vertical, (x, low, high, edge) => [x, low, x, high, edge]);
  merge(horizontal, (y, low, high, edge) => [low, y, high, y, edge]);
  return out;
}

export function layoutMetrics(drawing) {
  const nodes = drawing.nodes;
  const nodeCount = nodes.length / 4;
  const segments = [];  // [x0, y0, x1, y1, edge]
  let edgeLength = 0;
  drawing.edges.forEach((edge, e) => {
    for (const line of edge.lines) {
      for (let i = 2; i + 1 < line.length; i += 2) {
        const s = [line[i - 2], line[i - 1], line[i], line[i + 1], e];
        edgeLength += Math.hypot(s[2] - s[0], s[3] - s[1]);
        if (s[0] !== s[2] || s[1] !== s[3]) segments.push(s);
      }
    }
  });

  const merged = mergeOverlaps(segments);  // not spread into a call: a 50k-node drawing has more segments than a call takes arguments
  segments.length = 0;
  for (const s of merged) segments.push(s);

  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  for (let v = 0; v < nodeCount; v++) {
    left = Math.min(left, nodes[4 * v] - nodes[4 * v + 2] / 2);
    right = Math.max(right, nodes[4 * v] + nodes[4 * v + 2] / 2);
    top = Math.min(top, nodes[4 * v + 1] - nodes[4 * v + 3] / 2);
    bottom = Math.max(bottom, nodes[4 * v + 1] + nodes[4 * v + 3] / 2);
  }
  for (const s of segments) {
    left = Math.min(left, s[0], s[2]); right = Math.max(right, s[0], s[2]);
    top = Math.min(top, s[1], s[3]); bottom = Math.max(bottom, s[1], s[3]);
  }
  if (!Number.isFinite(left)) return { crossings: 0, edge_length: 0, node_overlaps: 0, edge_node_hits: 0 };
  const cell = 64;

  // Crossings: each pair is counted in the cell that holds its crossing point, so once.
  const segmentGrid = new Grid(left, top, cell);
  segments.forEach((s, i) => segmentGrid.insert(i, Math.min(s[0], s[2]), Math.min(s[1], s[3]), Math.max(s[0], s[2]), Math.max(s[1], s[3])));
  const crossingPoints = new Set();
  for (const [key, list] of segmentGrid.cells) {
    for (let i = 0; i < list.length; i++) {
      const a = segments[list[i]];
      for (let j = i + 1; j < list.length; j++) {
        const b = segments[list[j]];
        if (a[4] === b[4]) continue;
        if (Math.max(a[0], a[2]) < Math.min(b[0], b[2]) || Math.max(b[0], b[2]) < Math.min(a[0], a[2])) continue;
        if (Math.max(a[1], a[3]) < Math.min(b[1], b[3]) || Math.max(b[1], b[3]) < Math.min(a[1], a[3])) continue;
        const p = properCrossing(a, b);
        if (!p) continue;
        const [c, r] = segmentGrid.cellOf(p[0], p[1]);
        if (segmentGrid.key(c, r) === key) crossingPoints.add(`${Math.round(p[0] * 100)},${Math.round(p[1] * 100)}`);
      }
    }
  }

  // Boxes: overlaps between nodes, and segments through boxes that are not their edge's ends.
  const nodeGrid = new Grid(left, top, cell);
  const box = (v) => [nodes[4 * v] - nodes[4 * v + 2] / 2, nodes[4 * v + 1] - nodes[4 * v + 3] / 2,
    nodes[4 * v] + nodes[4 * v + 2] / 2, nodes[4 * v + 1] + nodes[4 * v + 3] / 2];
  for (let v = 0; v < nodeCount; v++) nodeGrid.insert(v, ...box(v));
  let overlaps = 0;
  for (const [key, list] of nodeGrid.cells) {
    for (let i = 0; i < list.length; i++) {
      const a = box(list[i]);
      for (let j = i + 1; j < list.length; j++) {
        const b = box(list[j]);
        const l = Math.max(a[0], b[0]), t = Math.max(a[1], b[1]);
        if (l < Math.min(a[2], b[2]) - 0.5 && t < Math.min(a[3], b[3]) - 0.5) {
          const [c, r] = nodeGrid.cellOf(l, t);
          if (nodeGrid.key(c, r) === key) overlaps++;
        }
      }
    }
  }
  let hits = 0;
  for (const s of segments) {
    const edge = drawing.edges[s[4]];
    const seen = new Set();
    const [c0, r0] = nodeGrid.cellOf(Math.min(s[0], s[2]), Math.min(s[1], s[3]));
    const [c1, r1] = nodeGrid.cellOf(Math.max(s[0], s[2]), Math.max(s[1], s[3]));
    for (let c = c0; c <= c1; c++) {
      for (let r = r0; r <= r1; r++) {
        for (const v of nodeGrid.cells.get(nodeGrid.key(c, r)) ?? []) {
          if (v === edge.from || v === edge.to || seen.has(v)) continue;
          seen.add(v);
          if (segmentEntersBox(s, ...box(v))) hits++;
        }
      }
    }
  }
  return { crossings: crossingPoints.size, edge_length: Math.round(edgeLength), node_overlaps: overlaps, edge_node_hits: hits };
}
