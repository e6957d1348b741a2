# Debian's MLIR is built against libLLVM.so: its exported static MLIR targets
# name the shared `LLVM` target, and LLVMSupport names libz3/libz/libzstd as
# shared libraries. Re-point those interfaces at static archives so that our
# tools carry no LLVM/MLIR shared library (`ldd` shows only glibc).
set(LLVM_LINK_LLVM_DYLIB OFF)
set(MLIR_LINK_MLIR_DYLIB OFF)

find_library(RINGFUSE_ZSTD_STATIC NAMES libzstd.a REQUIRED)
find_library(RINGFUSE_Z_STATIC NAMES libz.a REQUIRED)

llvm_map_components_to_libnames(RINGFUSE_LLVM_STATIC_LIBS
  Support Demangle Remarks BitstreamReader)

set_target_properties(LLVMSupport PROPERTIES INTERFACE_LINK_LIBRARIES
  "rt;dl;m;pthread;${RINGFUSE_Z_STATIC};${RINGFUSE_ZSTD_STATIC};LLVMDemangle")

foreach(target IN LISTS MLIR_EXPORTED_TARGETS)
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    continue()
  endif()
  get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  if(deps)
    list(TRANSFORM deps REPLACE "^LLVM$" "${RINGFUSE_LLVM_STATIC_LIBS}")
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
  endif()
endforeach()

# Applied to every compiler binary: C++ runtime folded in, unused sections dropped.
function(ringfuse_static_tool target)
  target_link_options(${target} PRIVATE
    -static-libstdc++ -static-libgcc -Wl,--gc-sections -Wl,--as-needed)
endfunction()
