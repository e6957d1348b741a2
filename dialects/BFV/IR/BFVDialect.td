#ifndef RINGFUSE_BFV_DIALECT_TD
#define RINGFUSE_BFV_DIALECT_TD

include "mlir/IR/OpBase.td"

def BFV_Dialect : Dialect {
  let name = "bfv";
  let summary = "The BFV scheme: ciphertexts, plaintexts and what a circuit does with them";
  let description = [{
    The scheme level of ringfuse, what a user's circuit says. Values are BFV
    ciphertexts (2 components, or 3 after a multiplication) and plaintexts of
    one parameter set `#bfv.params`. Plaintext slots follow the batching layout
    of two rows of N/2 slots; arithmetic on slots is modulo t.

    Every op's meaning is stated on the decrypted values: if `x` decrypts to
    the slot vector m_x, `bfv.add %x, %y` decrypts to m_x + m_y (mod t).
  }];
  let cppNamespace = "::ringfuse::bfv";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
    /// A module's BFV multiplication variant (a #bfv.variant).
    static constexpr ::llvm::StringLiteral kVariantAttrName = "bfv.variant";
    /// bfv-choose-variant's estimate per candidate, in microseconds.
    static constexpr ::llvm::StringLiteral kVariantCostsAttrName =
        "bfv.variant_costs";
    /// On a plaintext argument only multiplied into ciphertexts
    /// (bfv-prepare-plaintext-inputs): the runtime hands the program the
    /// input rotated by these steps, lifted to Q and in evaluation form.
    static constexpr ::llvm::StringLiteral kPreparedAttrName = "bfv.prepared";
  }];
}

#endif // RINGFUSE_BFV_DIALECT_TD
