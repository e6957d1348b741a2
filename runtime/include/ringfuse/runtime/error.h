//===- error.h - the runtime's one error type ---------------------*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_ERROR_H
#define RINGFUSE_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace ringfuse::runtime {

/// Every runtime failure: the message says what was expected and what was
/// found ("ciphertext has 3 components; relinearize it before rotate").
/// Python sees it as ValueError.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// A GPU allocation that did not fit even after the runtime gave back what
/// it held unused; the message says how much was needed and how much the
/// GPU had. Python sees it as ringfuse.OutOfDeviceMemory, a MemoryError:
/// the process, and every program loaded in it, keeps working.
class OutOfDeviceMemory : public Error {
public:
  using Error::Error;
};

/// Host memory that the machine cannot give (a CPU program's buffers, say);
/// the message says how much was needed and how much was available. Python
/// sees it as MemoryError: refused before the allocation, so that the
/// process is not ended by the system's out-of-memory killer instead.
class OutOfHostMemory : public Error {
public:
  using Error::Error;
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_ERROR_H
