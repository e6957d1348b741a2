// word-bits=auto: the word size measured faster at the N and log Q chosen
// for 64-bit words. The built-in table (bench/word_sizes.py on the H200) has
// 64-bit words faster at every set, so the module keeps them:
// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters=word-bits=auto | FileCheck %s --check-prefix=BUILTIN
// A table with 32-bit words faster at logN 13 gives them at N = 8192 (30-bit
// primes, as word-bits=32 chooses, bfv-select-parameters-words.mlir):
// RUN: ringfuse-opt %s --split-input-file --bfv-select-parameters='word-bits=auto word-size-table=%S/Inputs/word-sizes-32-faster.json' | FileCheck %s --check-prefix=FASTER
// A table it cannot use is an error:
// RUN: not ringfuse-opt %s --split-input-file --bfv-select-parameters='word-bits=auto word-size-table=%S/Inputs/word-sizes-negative-time.json' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not ringfuse-opt %s --split-input-file --bfv-select-parameters='word-bits=auto word-size-table=%S/Inputs/does-not-exist.json' 2>&1 | FileCheck %s --check-prefix=MISSING

// BUILTIN-NOT: bfv.word_bits
// BUILTIN: #params = #bfv.params<t = 65537, N = 8192, Q = [{{[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]+}},
// FASTER: #params = #bfv.params<t = 65537, N = 8192, Q = [1073692673, 1073643521, 1073479681, 1073430529, 1073299457, 1073233921], P = [1073184769], dnum = 6>
// FASTER: module attributes {bfv.word_bits = 32 : i64}
// BAD: error: bfv-select-parameters: word-size table {{.*}}word-sizes-negative-time.json: entry 0: 'us_32' must be a positive number
// MISSING: error: bfv-select-parameters: word-size table {{.*}}does-not-exist.json: cannot read it
#p = #bfv.params<t = 65537>
func.func @depth4(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %x : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %2 = bfv.mul %1, %1 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %3 = bfv.relinearize %2 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %4 = bfv.mul %3, %3 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %5 = bfv.relinearize %4 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %6 = bfv.mul %5, %5 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %7 = bfv.relinearize %6 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %7 : !bfv.ciphertext<#p, 2>
}

// -----

// Given moduli that fit 32-bit words take them where the table says they are
// faster at that N (here N = 8192 with a table entry), else keep 64.
// BUILTIN-NOT: bfv.word_bits
// FASTER: #params = #bfv.params<t = 65537, N = 8192, Q = [1073692673, 1073643521], P = [1073184769], dnum = 2>
// FASTER: module attributes {bfv.word_bits = 32 : i64}
#p = #bfv.params<t = 65537, N = 8192, Q = [1073692673, 1073643521], P = [1073184769], dnum = 2>
func.func @given(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  return %x : !bfv.ciphertext<#p, 2>
}
