// ONNX files imported by the worker's code are bundled as their bytes (esbuild's binary loader,
// web/build_support.mjs).
declare module '*.onnx' {
  const bytes: Uint8Array;
  export default bytes;
}
