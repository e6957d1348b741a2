//===- program_loader.cpp - loading a compiled program's shared library ---===//
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/program.h"

#include <dlfcn.h>

namespace ringfuse::runtime {

namespace {
std::string lastDlError() {
  const char *why = dlerror();
  return why ? why : "no reason given by the dynamic loader";
}
} // namespace

Program Program::load(const std::string &sharedLibraryPath, Device device) {
  const std::string &path = sharedLibraryPath;
  if (path.empty())
    throw Error("cannot load a compiled program: the path is empty");
  // dlopen searches the library path for a name without a slash; a program
  // named "circuit.so" means the file in the current directory.
  const std::string openPath =
      path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  // RTLD_LOCAL: two programs export the same two symbols, each must keep its
  // own. RTLD_NOW: an unresolved symbol fails here, not in the middle of run.
  void *handle = dlopen(openPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw Error("cannot load the compiled program " + path + ": " +
                lastDlError());
  std::shared_ptr<void> library(handle, [](void *h) { dlclose(h); });

  auto symbol = [&](const char *name) {
    dlerror();
    void *address = dlsym(handle, name);
    if (!address)
      throw Error("the compiled program " + path + " does not export " + name +
                  ": " + lastDlError());
    return address;
  };
  // POSIX guarantees that a dlsym address converts to a function pointer.
  auto manifest =
      reinterpret_cast<RfManifestFunction>(symbol("ringfuse_manifest"));
  auto run = reinterpret_cast<RfRunFunction>(symbol("ringfuse_run"));
  try {
    return fromFunctions(manifest, run, device, std::move(library));
  } catch (const OutOfDeviceMemory &e) { // keeps its kind: a MemoryError
    throw OutOfDeviceMemory(path + ": " + e.what());
  } catch (const OutOfHostMemory &e) { // keeps its kind: a MemoryError
    throw OutOfHostMemory(path + ": " + e.what());
  } catch (const Error &e) {
    throw Error(path + ": " + e.what());
  }
}

} // namespace ringfuse::runtime
