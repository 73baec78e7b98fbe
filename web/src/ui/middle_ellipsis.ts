// Node names are paths ("/features/features.17/conv/conv.1/conv.1.0/Conv"): a few of their parts
// tell one layer from another (the block "features.17", the op's own name at the end), while parts
// most names of the column have ("features", "conv") tell nothing. A name too long for its cell
// drops inner parts, the most common first, each run of dropped parts shown as one "…"
// ("/…/features.17/…/Conv"), and gets back those that fit again; never its last part. Only if that is not enough is it cut in the
// middle by characters. Measured with the cell's font; each (name, width) is cut once.
export class MiddleEllipsis {
  private readonly ctx = document.createElement('canvas').getContext('2d')!;
  private readonly cache = new Map<string, string>();
  private font = '';

  /** `text` as it fits `width` CSS pixels in `font`; `counts` says in how many names of the column each path part is. */
  cut(text: string, width: number, font: string, counts: ReadonlyMap<string, number> = new Map()): string {
    if (font !== this.font) {
      this.ctx.font = this.font = font;
      this.cache.clear();
    }
    const key = `${width}\u0000${text}`;
    let out = this.cache.get(key);
    if (out === undefined) this.cache.set(key, (out = this.fit(text, width, counts)));
    return out;
  }

  /** Forgets what was cut (the column's names changed). */
  clear(): void {
    this.cache.clear();
  }

  private fit(text: string, width: number, counts: ReadonlyMap<string, number>): string {
    const fits = (s: string) => this.ctx.measureText(s).width <= width;
    if (fits(text)) return text;
    // Only a scope path ("/block/sub/Op", as exporters write scopes) has parts to drop.
    const parts = text.startsWith('/') ? text.split('/') : [text];
    const dropped = new Set<number>();
    const shown = () => {
      const out: string[] = [];
      parts.forEach((p, k) => {
        if (!dropped.has(k)) out.push(p);
        else if (out[out.length - 1] !== '…') out.push('…');
      });
      return out.join('/');
    };
    // Inner parts (not the empty start of "/a/b", not the last), the most common first.
    const inner = parts.map((_, k) => k).filter((k) => k < parts.length - 1 && parts[k] !== '')
      .sort((a, b) => (counts.get(parts[b]) ?? 0) - (counts.get(parts[a]) ?? 0) || a - b);
    let short = text;
    for (const k of inner) {
      dropped.add(k);
      short = shown();
      if (!fits(short)) continue;
      // Fits: parts dropped before the last one may fit again beside it (the rarer first).
      for (const back of [...dropped].reverse()) {
        dropped.delete(back);
        if (fits(shown())) continue;
        dropped.add(back);
      }
      return shown();
    }
    // Still too long: as much of the start as of the end (binary search on the characters kept).
    let lo = 0, hi = short.length - 1;
    const keep = (n: number) => `${short.slice(0, Math.floor(n / 2))}…${short.slice(short.length - Math.ceil(n / 2))}`;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (fits(keep(mid))) lo = mid;
      else hi = mid - 1;
    }
    return keep(lo);
  }
}

/** In how many of `names` each path part is (a name counted once per part). */
export function pathPartCounts(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of names) for (const p of new Set(n.split('/'))) if (p) counts.set(p, (counts.get(p) ?? 0) + 1);
  return counts;
}
