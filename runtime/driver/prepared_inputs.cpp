//===- prepared_inputs.cpp - plaintext inputs as a program takes them -----===//
#include "prepared_inputs.h"

#include "ringfuse/runtime/ntt.h"

namespace ringfuse::runtime::detail {

std::vector<uint64_t> preparePlaintext(const RfRuntime &s,
                                       const ValueLayout &layout,
                                       const Plaintext &plaintext) {
  const Context &c = *s.context;
  const size_t n = s.n;
  const uint64_t t = c.plaintextModulus();
  std::vector<uint64_t> m(plaintext.coefficients);
  if (layout.galois != 0) {
    std::vector<uint64_t> rotated(n);
    applyAutomorphism(m.data(), n, layout.galois, t, rotated.data());
    m.swap(rotated);
  }
  // The centered lift (m > t/2 stands for m - t), as the program's exact
  // lift of a plaintext into R_Q, then each limb's forward NTT.
  const std::vector<uint64_t> &q = c.q().values();
  std::vector<uint64_t> words(q.size() * n);
  for (size_t i = 0; i < q.size(); ++i) {
    uint64_t *limb = words.data() + i * n;
    for (size_t j = 0; j < n; ++j)
      limb[j] = m[j] > t / 2 ? q[i] - (t - m[j]) : m[j];
    c.nttQP(i).forward(limb);
  }
  return words;
}

DriverInputs::DriverInputs(RfRuntime &s,
                           const std::vector<ProgramInput> &inputs)
    : inputs_(inputs) {
  for (size_t v = 0; v < inputs_.size(); ++v) {
    const ValueLayout &layout = s.inputs[v];
    if (!layout.prepared)
      continue;
    const Plaintext &given = *std::get<const Plaintext *>(inputs_[v]);
    RfRuntime::PreparedInput &kept = s.preparedInputs[v];
    // Compared word for word: N words cost far less than the limbs' NTTs.
    if (kept.given != given.coefficients || !kept.prepared.context) {
      kept.prepared =
          Plaintext{given.context, preparePlaintext(s, layout, given)};
      kept.given = given.coefficients;
      ++kept.generation;
    }
    inputs_[v] = &kept.prepared;
  }
}

PreparedBatch::PreparedBatch(const RfRuntime &s,
                             const std::vector<BatchArgument> &arguments)
    : arguments_(arguments) {
  for (size_t v = 0; v < arguments_.size(); ++v) {
    const ValueLayout &layout = s.inputs[v];
    if (!layout.prepared)
      continue;
    for (const Plaintext *&given :
         std::get<std::vector<const Plaintext *>>(arguments_[v])) {
      const Plaintext *&prepared = byInput_[{given, v}];
      if (!prepared) {
        prepared_.push_back(
            Plaintext{given->context, preparePlaintext(s, layout, *given)});
        prepared = &prepared_.back();
      }
      given = prepared;
    }
  }
}

} // namespace ringfuse::runtime::detail
