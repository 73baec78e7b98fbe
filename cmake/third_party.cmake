# protobuf 3.21.12 (lite runtime) and onnx 1.17.0 built from the pinned sources that
# scripts/bootstrap verifies and unpacks into .cache/third_party/src.
set(VQ_THIRD_PARTY_DIR "${PROJECT_SOURCE_DIR}/.cache/third_party/src" CACHE PATH "Unpacked third-party sources")
set(VQ_PROTOBUF_DIR "${VQ_THIRD_PARTY_DIR}/protobuf-3.21.12")
set(VQ_ONNX_DIR "${VQ_THIRD_PARTY_DIR}/onnx-1.17.0")
foreach(dir "${VQ_PROTOBUF_DIR}" "${VQ_ONNX_DIR}")
  if(NOT EXISTS "${dir}/.verified")
    message(FATAL_ERROR "${dir} is missing or unverified: run scripts/bootstrap")
  endif()
endforeach()

# Third-party code is not ours to warn about.
set(_vq_saved_cxx_flags "${CMAKE_CXX_FLAGS}")
set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -w")
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

set(protobuf_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(protobuf_BUILD_PROTOC_BINARIES OFF CACHE BOOL "" FORCE)
set(protobuf_BUILD_LIBPROTOC OFF CACHE BOOL "" FORCE)
set(protobuf_BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
set(protobuf_WITH_ZLIB OFF CACHE BOOL "" FORCE)
set(protobuf_INSTALL ON CACHE BOOL "" FORCE) # onnx's install rules refer to protobuf's targets
add_subdirectory("${VQ_PROTOBUF_DIR}" "${CMAKE_BINARY_DIR}/third_party/protobuf" EXCLUDE_FROM_ALL)

# Debian's protoc is the same version (3.21.12) as the runtime, and it runs on the build machine
# for both toolchains.
find_program(VQ_PROTOC protoc REQUIRED)
set(ONNX_CUSTOM_PROTOC_EXECUTABLE "${VQ_PROTOC}" CACHE FILEPATH "" FORCE)
set(ONNX_USE_LITE_PROTO ON CACHE BOOL "" FORCE)
set(ONNX_ML ON CACHE BOOL "" FORCE)
set(BUILD_ONNX_PYTHON OFF CACHE BOOL "" FORCE)
set(ONNX_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(ONNX_GEN_PB_TYPE_STUBS OFF CACHE BOOL "" FORCE)
set(ONNX_WERROR OFF CACHE BOOL "" FORCE)
set(ONNX_DISABLE_STATIC_REGISTRATION OFF CACHE BOOL "" FORCE)
add_subdirectory("${VQ_ONNX_DIR}" "${CMAKE_BINARY_DIR}/third_party/onnx" EXCLUDE_FROM_ALL)

set(CMAKE_CXX_FLAGS "${_vq_saved_cxx_flags}")

# In wasm, their code is built for size: it runs once per model (operator schemas, parsing, shape
# inference) and a browser compiles every function it runs, first quickly and then, for the hot
# ones, again with its optimising compiler. -Os makes the module 2.5 MB instead of 3.2 MB, and the
# first comparison of a 20,000-node pair in Chromium (two cores) about 0.4 s faster, with no
# measurable loss once compiled. Our own code that a comparison runs once is built for size too
# (core/CMakeLists.txt); the layout engine and the weight analysis keep -O3: they are hot.
# Operator documentation is never shown (a node's detail shows its own doc string, not its
# operator's): leaving the schemas' doc strings out makes the registry built at start-up smaller.
target_compile_definitions(onnx PUBLIC __ONNX_NO_DOC_STRINGS)
if(EMSCRIPTEN)
  foreach(target onnx onnx_proto libprotobuf-lite)
    target_compile_options(${target} PRIVATE -Os)
  endforeach()
endif()

# Their headers are system headers for us: no warnings from code we do not own.
foreach(target onnx onnx_proto libprotobuf-lite)
  get_target_property(_vq_dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(_vq_dirs)
    set_target_properties(${target} PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_vq_dirs}")
  endif()
endforeach()
