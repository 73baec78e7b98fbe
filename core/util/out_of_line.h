// VQ_OUT_OF_LINE keeps a large step out of the function that calls it.
//
// Why: in a browser, wasm code first runs as a quick baseline compiler made it; a function that
// runs long is compiled again, optimised, on another thread, and the new code serves its next call
// (wasm has no on-stack replacement). A driver that inlines every step it calls once becomes one
// huge function, costly to optimise (tenths of a second of a two-core machine's time, while the
// user waits) for a next call that only comes with the next comparison. Kept apart, a step called
// again and again is optimised for its later calls, and one called once is not optimised in vain.
// Natively the cost is one call per step.
//
// In wasm the link-time optimiser must agree too: Binaryen inlines a function with a single call
// site into its caller whatever the compiler was told, so the module is linked with that inlining
// limited to small functions (wasm/CMakeLists.txt), and the code a comparison runs once is built
// for size, which inlines less to begin with (core/CMakeLists.txt). Check the linked module's
// symbol map (link again with --emit-symbol-map) before counting on a step being apart.
#pragma once

#define VQ_OUT_OF_LINE __attribute__((noinline))
