# Header-only libraries (nlohmann/json, protozero) are taken from Debian's packages but exposed
# through a private include folder: /usr/include must never be on the wasm include path (its libc
# and libstdc++ headers would shadow Emscripten's), and both toolchains must see the same headers.
set(VQ_HEADER_ONLY_DIR "${CMAKE_BINARY_DIR}/header_only")
file(MAKE_DIRECTORY "${VQ_HEADER_ONLY_DIR}")
foreach(dep nlohmann protozero)
  if(NOT EXISTS "/usr/include/${dep}")
    message(FATAL_ERROR "/usr/include/${dep} is missing: run scripts/bootstrap")
  endif()
  if(NOT EXISTS "${VQ_HEADER_ONLY_DIR}/${dep}")
    file(CREATE_LINK "/usr/include/${dep}" "${VQ_HEADER_ONLY_DIR}/${dep}" SYMBOLIC)
  endif()
endforeach()
add_library(vq_header_only INTERFACE)
target_include_directories(vq_header_only SYSTEM INTERFACE "${VQ_HEADER_ONLY_DIR}")
