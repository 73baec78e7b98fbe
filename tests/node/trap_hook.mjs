// A real wasm trap inside a real call of the wrapper, for the tests of instance recovery: the core's
// test hook (testOnlyTrap, wasm/bindings.cc: __builtin_trap()) run where the call first enters the
// module. No model file traps the core any more: it refuses those it cannot follow cleanly.

/**
 * Makes the next core session `core` (a VisualQuant) creates run the test hook instead: its next
 * open, compare, inspect or layout traps, as a model that overflowed the stack once did.
 */
export function trapNextSession(core) {
  const m = core.module;
  const Session = m.Session;
  m.Session = function trapping() {
    m.Session = Session;
    m.testOnlyTrap();
  };
}
