// Model-local functions (ModelProto.functions) as a call graph, checked before the onnx checker and
// shape inference see the model.
//
// Why: onnx's shape inference follows every call of a model-local function into its body, and every
// If/Loop/Scan body into that body, by recursion on the C++ stack. A function that calls itself,
// directly or through other functions, is followed without end (a stack overflow: SIGSEGV natively,
// a crash of the wasm module in a browser); a long enough chain of calls overflows the stack as well.
// A node calls a function when its domain, op_type and overload are the function's domain, name and
// overload ("" and "ai.onnx" being one domain), wherever the node sits: the main graph, a function
// body, or an If/Loop/Scan body inside either.
#pragma once

namespace onnx {
class ModelProto;
}

namespace vq {

struct FunctionCallLimits {
  // Levels of nesting below the main graph (or below a function nobody calls): each call of a
  // model-local function and each If/Loop/Scan body is one level. Real models nest a few levels
  // (module hierarchies exported as functions); the limit leaves the stack, natively and in wasm, far
  // from full.
  int max_nesting = 64;
};

// Throws Error(RecursiveFunction) naming the functions of a cycle ("f -> g -> f"), or
// Error(FunctionNestingTooDeep) naming the deepest chain of calls. Costs nothing for a model without
// functions.
void check_function_calls(const onnx::ModelProto& model, const FunctionCallLimits& limits = {});

}  // namespace vq
