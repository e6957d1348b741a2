//===- program_words.h - the program ABI's types per word size -*- C++ -*-===//
//
// A program's buffers hold 64-bit or 32-bit words (RfManifest::word_bits);
// the ABI's types that carry buffer words come in both sizes, and C++ code
// that is a template on the word finds the one of its size here.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_PROGRAM_WORDS_H
#define RINGFUSE_RUNTIME_PROGRAM_WORDS_H

#include "ringfuse/runtime/program_abi.h"

#include <cstdint>

namespace ringfuse::runtime {

/// Key switching's addend of a program of Word words.
template <typename Word> struct AddendOfWord;
template <> struct AddendOfWord<uint64_t> { using type = RfKeySwitchAddend; };
template <> struct AddendOfWord<uint32_t> { using type = RfKeySwitchAddend32; };
template <typename Word>
using KeySwitchAddendOf = typename AddendOfWord<Word>::type;

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_PROGRAM_WORDS_H
