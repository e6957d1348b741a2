#ifndef RINGFUSE_BFV_TYPES_TD
#define RINGFUSE_BFV_TYPES_TD

include "dialects/BFV/IR/BFVAttributes.td"
include "mlir/IR/AttrTypeBase.td"

class BFV_Type<string name, string typeMnemonic> : TypeDef<BFV_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def BFV_Ciphertext : BFV_Type<"Ciphertext", "ciphertext"> {
  let summary = "A BFV ciphertext: `size` polynomials of R_Q";
  let description = [{
    `!bfv.ciphertext<#params, 2>`: a ciphertext (c_0, ..., c_{size-1}) in R_Q
    that decrypts as [round(t/Q * [c_0 + c_1 s + c_2 s^2 + ...]_Q)]_t.
    A fresh ciphertext has 2 components; `bfv.mul` makes 3 and
    `bfv.relinearize` brings them back to 2.
  }];
  let parameters = (ins "::ringfuse::bfv::ParamsAttr":$params, "unsigned":$size);
  let assemblyFormat = "`<` qualified($params) `,` $size `>`";
  let genVerifyDecl = 1;
}

def BFV_Plaintext : BFV_Type<"Plaintext", "plaintext"> {
  let summary = "A BFV plaintext: a polynomial of R_t";
  let description = [{
    `!bfv.plaintext<#params>`: an encoded plaintext m in R_t. With batching its
    N coefficients are the inverse slot transform of N values mod t.
  }];
  let parameters = (ins "::ringfuse::bfv::ParamsAttr":$params);
  let assemblyFormat = "`<` qualified($params) `>`";
}

#endif // RINGFUSE_BFV_TYPES_TD
