// What a model file may weigh when it is held whole in the core's memory (every .onnx file is:
// only external-data files are read by range, a weight at a time). Said before a byte of it is
// read, with the file's size and the limit, by the page's worker and the VS Code host alike.

/**
 * The largest model file held whole. The core's wasm memory grows to 4 GiB, shared by both models and
 * the analysis, and a fresh instance's allocator gives no single block of 2 GiB
 * (tests/node/heap_limits.test.mjs); a file of 2 GiB with its weights inline is past protobuf's own
 * limit too, which onnx.load and ONNX Runtime refuse anyway.
 */
export const HELD_FILE_LIMIT = 2 ** 31 - 2 ** 24;

const gib = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GiB`;

/** Why `name` cannot be held whole (null when it can): its size, the limit, and what to do instead. */
export function heldFileRefusal(name: string, size: number): string | null {
  if (size <= HELD_FILE_LIMIT) return null;
  return `${name} is ${size} bytes (${gib(size)}) with its weights inline, more than the ${gib(HELD_FILE_LIMIT)} a model file may take in the `
    + 'core\'s memory (only external-data files are read a weight at a time): save it with its weights as external data '
    + '(onnx.save_model(..., save_as_external_data=True)) and give the .onnx with its data files, or compare it with the visualquant command.';
}
