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

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_ERROR_H
