// The pieces of a pair's files as the core worker reads them (a picked file's or a response's
// chunks, or the bytes it was given), kept for the helper core (weights_helper.ts) when the pair is
// worth one: they are transferred to it once the graphs are drawn, where copying the files back
// out of this core's memory took 60 ms of its time on the segmentation pair (120 MB into fresh
// pages, each faulted in) just as its share of the analysis began, and the helper waited for it.
// Whether the pair is worth a helper is known once every file's size is: pieces read before then
// are kept meanwhile, and dropped if it is not.
import type { FilePieces } from '../protocol/messages';

export class KeptPieces {
  private files: ArrayBuffer[][];
  /** null: not decided yet (pieces are kept meanwhile). */
  private wanted: boolean | null = null;

  constructor(count: number) {
    this.files = Array.from({ length: count }, () => []);
  }

  /** A piece of file `file`, in order: kept whole when it is its buffer's only view, else copied. */
  add(file: number, piece: Uint8Array | ArrayBuffer): void {
    if (this.wanted === false) return;
    const whole = piece instanceof ArrayBuffer ? piece
      : piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength && piece.buffer instanceof ArrayBuffer ? piece.buffer
        : piece.slice().buffer;
    this.files[file].push(whole);
  }

  /** Whether the pieces are wanted; when not, those kept so far go. */
  decide(wanted: boolean): void {
    this.wanted = wanted;
    if (!wanted) this.files = this.files.map(() => []);
  }

  /** Every file's pieces, named, when they are wanted (the files must all have been read); once. */
  take(names: string[]): FilePieces[] | null {
    if (!this.wanted) return null;
    const out = this.files.map((pieces, i) => ({ name: names[i], pieces }));
    this.decide(false);
    return out;
  }
}
