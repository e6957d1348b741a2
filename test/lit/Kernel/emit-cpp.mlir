// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp | FileCheck %s
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.cpp
// Independent launches run in concurrent regions (kernel-concurrent).
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-to-kernel --kernel-concurrent --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.concurrent.cpp
// RUN: FileCheck %s --check-prefix=CONCURRENT < %t.concurrent.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.concurrent.cpp
// For BEHZ, the manifest's converters carry the method (2: Montgomery, 3:
// Shenoy-Kumaresan) and its scale-rounds the rounding (1: fast floor); the
// program compiles against the runtime's header.
// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=behz --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.behz.cpp
// RUN: FileCheck %s --check-prefix=BEHZ < %t.behz.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.behz.cpp
// With rns-choose-transform every NTT call carries its shape (for N = 16 the
// built-in table has no entry: the model's one block per limb, radix 4, 2
// on-the-fly stages), and none is left to the driver's default:
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-choose-transform --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp | FileCheck %s --check-prefix=CHOSEN --implicit-check-not=', 0, 0, 0);'
// With the DGT the only transform kind (rns-choose-transform kinds=dgt),
// every transform is a dgt_forward / dgt_inverse, none fused (the key
// switch's digits are converted, then transformed), and the manifest marks
// the bases they run on, so that the runtime builds their DGT tables:
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-choose-transform=kinds=dgt --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.dgt.cpp
// RUN: FileCheck %s --check-prefix=DGT --implicit-check-not='k->ntt_' < %t.dgt.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.dgt.cpp
// DGT: const RfBasis bases[] =
// DGT-SAME: {basis0, 3, 1}, {basis1, 2, 0}, {basis2, 1, 0}, {basis3, 3, 1},
// DGT: k->dgt_forward(rt, 0, [[X:b\[[0-9]+\]]]);
// DGT: k->dgt_inverse(rt, 0, [[X]]);
// DGT: k->convert(rt, 2, ([[D:b\[[0-9]+\]]] + 0 * N), [[DIGIT:b\[[0-9]+\]]]);
// DGT-NEXT: k->dgt_forward(rt, 3, [[DIGIT]]);
// DGT: k->key_switch_inner_product(rt, 0, 3, digits, 2,
// DGT: k->dgt_inverse(rt, 3,

// With the domains assigned, the square's tensor terms are one ntt_products
// (x1 x0 + x1 x0 the product named twice), in place on the lifted
// components, and the program compiles against the runtime's header.
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains --canonicalize --cse --rns-fuse --rns-to-kernel=products-from-log-n=4 --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.products.cpp
// RUN: FileCheck %s --check-prefix=PRODUCTS < %t.products.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.products.cpp
// Compact HPS with rns-fuse: relinearization's key switch takes the tensor
// terms' Q limbs (views of their buffers, in evaluation form) with a table
// of scales; only their B limbs are transformed back, in place, and each
// is rounded from those alone (a rounding whose input is its divisor). The
// rotation's key switch has no addend. The program compiles against the
// runtime's header.
// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=chps --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-fuse --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.compact.cpp
// RUN: FileCheck %s --check-prefix=COMPACT < %t.compact.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.compact.cpp
// COMPACT: k->ntt_inverse(rt, [[B:[0-9]+]], ([[D0:b\[[0-9]+\]]] + 2 * N), 0, 0, 0);
// COMPACT: k->ntt_inverse(rt, [[B]], ([[D1:b\[[0-9]+\]]] + 2 * N), 0, 0, 0);
// COMPACT: k->scale_round(rt, [[BQ:[0-9]+]], ([[D0]] + 2 * N), [[H0:b\[[0-9]+\]]]);
// COMPACT-NEXT: k->scale_round(rt, [[BQ]], ([[D1]] + 2 * N), [[H1:b\[[0-9]+\]]]);
// COMPACT: const RfKeySwitchAddend addend = {([[D0]] + 0 * N), ([[D1]] + 0 * N), {{b\[[0-9]+\]}}, 2};
// COMPACT-NEXT: k->ntt_key_switch(rt, 0, [[QP:[0-9]+]], source_bases, sources, scratch, 2, [[K0:b\[[0-9]+\]]], [[K1:b\[[0-9]+\]]], &addend, 0, 0, 0);
// COMPACT: k->scale_round_add(rt, [[P:[0-9]+]], [[K0]], [[H0]],
// COMPACT-NEXT: k->scale_round_add(rt, [[P]], [[K1]], [[H1]],
// COMPACT: k->ntt_key_switch(rt, 1, [[QP]], source_bases, sources, scratch, 2, {{b\[[0-9]+\]}}, {{b\[[0-9]+\]}}, nullptr, 0, 0, 0);

// PRODUCTS: const int source_bases[] = {[[QB:[0-9]+]], [[QB]]};
// PRODUCTS-NEXT: const uint64_t *sources[] = {[[X0:b\[[0-9]+\]]], [[X1:b\[[0-9]+\]]]};
// PRODUCTS-NEXT: uint64_t *scratch[] = {[[X0]], [[X1]]};
// PRODUCTS-NEXT: const int products[] = {0, 0, 0, 1, 1, 0, 1, 1, 0, 2, 1, 1};
// PRODUCTS-NEXT: uint64_t *sums[] = {[[D0:b\[[0-9]+\]]], [[D1:b\[[0-9]+\]]], [[D2:b\[[0-9]+\]]]};
// PRODUCTS-NEXT: k->ntt_products(rt, [[QB]], source_bases, sources, scratch, 2, products, 4, sums, 3, 0, 0, 0);
// PRODUCTS: k->ntt_inverse(rt, [[QB]], [[D0]], 0, 0, 0);
// PRODUCTS-NOT: k->ntt_forward(rt, [[QB]],

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
func.func @square_rotated(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul %x, %x : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %2 = bfv.rotate %1 by 1 : !bfv.ciphertext<#p, 2>
  %3 = bfv.add_plain %2, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %3 : !bfv.ciphertext<#p, 2>
}

// CHECK: #include "ringfuse/runtime/program_abi.h"
// CHECK: constexpr size_t N = 16;
// CHECK: RF_HOST_DEVICE inline void elementwise_0(const Modulus &q, size_t limb, size_t i,
// CHECK: ringfuse::runtime::mulMod(
// CHECK-DAG: const uint64_t q[] = {193, 257};
// CHECK-DAG: const uint64_t p[] = {353};
// CHECK-DAG: const uint64_t {{basis[0-9]+}}[] = {193, 257, 353}; // QP
// CHECK-DAG: const uint64_t keys[] = {0ull, 3ull};
// The ciphertext input (two buffers), the plaintext input, one output.
// CHECK-DAG: const RfValue inputs[] = {{[{][{]}}0, 2, {0, 1, 0}, 0}, {1, 1, {2, 0, 0}, 0}};
// CHECK-DAG: const RfValue outputs[] = {{[{][{]}}0, 2, {{[{][0-9]+, [0-9]+, 0[}]}}, 0}};
// CHECK: RINGFUSE_PROGRAM_ABI_VERSION, "square_rotated", 16, 97ull,
// The manifest's last field is the module's variant (HPS without one).
// CHECK: constants, {{[0-9]+}}, keys, 2, "hps"};
// CHECK: extern "C" void ringfuse_run(RfRuntime *rt, const RfKernels *k) {
// CHECK: k->convert(rt,
// CHECK: k->ntt_forward(rt,
// CHECK: k->scale_round(rt,
// Relinearization's digits are one prime each, and only the inner product
// reads their transforms: one ntt_key_switch transforms each prime's words
// of the rounded component into the sums, each digit's first NTT step
// writing a scratch buffer of its own; no conversion or transformed digit
// is written out.
// CHECK: const int source_bases[] = {[[D0:[0-9]+]], [[D1:[0-9]+]]};
// CHECK-NEXT: const uint64_t *sources[] = {([[C2:b\[[0-9]+\]]] + 0 * N), ([[C2]] + 1 * N)};
// CHECK-NEXT: uint64_t *scratch[] = {[[S0:b\[[0-9]+\]]], [[S1:b\[[0-9]+\]]]};
// CHECK-NEXT: k->ntt_key_switch(rt, 0, [[QP:[0-9]+]], source_bases, sources, scratch, 2, {{b\[[0-9]+\]}}, {{b\[[0-9]+\]}}, nullptr, 0, 0, 0);
// CHECK: k->automorphism(rt, {{[0-9]+}}, 3ull,
// CHECK: const int source_bases[] = {[[D0]], [[D1]]};
// CHECK: k->ntt_key_switch(rt, 1, [[QP]], source_bases, sources, scratch, 2,
// CHECK-NOT: k->key_switch_inner_product(
// CHECK-NOT: k->ntt_forward_from(
// CHECK: k->scale_up(rt,

// A shape key switching's fused NTT does not run (radix 8): each digit is
// transformed on its own (ntt_forward_from, the one prime's words read for
// every limb), then the inner product reads the transforms.
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-choose-transform='cost-table=%S/../passes/Inputs/transform-costs-radix8-n16.json' --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.radix8.cpp
// RUN: FileCheck %s --check-prefix=RADIX8 < %t.radix8.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.radix8.cpp
// RADIX8: k->ntt_forward_from(rt, [[QP:[0-9]+]], {{[0-9]+}}, ([[C2:b\[[0-9]+\]]] + 0 * N), {{b\[[0-9]+\]}}, 0, 8, 0);
// RADIX8-NEXT: k->ntt_forward_from(rt, [[QP]], {{[0-9]+}}, ([[C2]] + 1 * N), {{b\[[0-9]+\]}}, 0, 8, 0);
// RADIX8: k->key_switch_inner_product(rt, 0, [[QP]], digits, 2,
// RADIX8-NOT: k->ntt_key_switch(

// CHOSEN: k->ntt_forward(rt, {{[0-9]+}}, {{[^,]+}}, 0, 4, 2);
// CHOSEN: k->ntt_inverse(rt, {{[0-9]+}}, {{[^,]+}}, 0, 4, 2);

// BEHZ: const RfConverter converters[] = {{.*}}{{[{][0-9]+, [0-9]+, 2[}].*[{][0-9]+, [0-9]+, 3[}]}}
// BEHZ: const RfScaleRound scale_rounds[] = {{.*}}numerator{{[0-9]+}}, 1, 1, 0, 0}

// The two components' lifts (the plaintext's scale-up joins them), then
// their transforms, each in a region; later the tensor terms' conversions
// back to Q, then key switching's one launch, in no region.
// CONCURRENT: k->concurrent_begin(rt);
// CONCURRENT-NEXT: k->convert(rt, 0,
// CONCURRENT-NEXT: k->convert(rt, 0,
// CONCURRENT-NEXT: k->scale_up(rt,
// CONCURRENT-NEXT: k->concurrent_end(rt);
// CONCURRENT-NEXT: k->concurrent_begin(rt);
// CONCURRENT-NEXT: k->ntt_forward(rt,
// CONCURRENT-NEXT: k->ntt_forward(rt,
// CONCURRENT-NEXT: k->concurrent_end(rt);
// CONCURRENT: k->convert(rt, 1,
// CONCURRENT-NEXT: k->convert(rt, 1,
// CONCURRENT-NEXT: k->convert(rt, 1,
// CONCURRENT-NEXT: k->concurrent_end(rt);
// CONCURRENT-NEXT: {
// CONCURRENT: k->ntt_key_switch(rt, 0,
// BEHZ: keys, 2, "behz"};

// rns-fuse: each tensor term's rounding converts exactly to Q in the same
// launch; the manifest names the converter (B -> Q, exact) after then_convert.
// Relinearization's closing sums join its divisions by P, and so does the
// rotation's one sum.
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-fuse --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.fused.cpp
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.fused.cpp
// FUSED: const RfConverter converters[] = {{[{][{]}}[[QI:[0-9]+]], [[QBI:[0-9]+]], 1}, {[[BI:[0-9]+]], [[QI]], 1}{{[,}]}}
// FUSED: const RfScaleRound scale_rounds[] = {{[{][{]}}[[QBI]], [[QI]], [[BI]], numerator{{[0-9]+}}, 1, 0, 1, 1},
// FUSED-COUNT-3: k->scale_round(rt, 0,
// FUSED-NOT: k->convert(rt, 1,
// FUSED: k->scale_round_add(rt, 1, {{b\[[0-9]+\]}}, {{b\[[0-9]+\]}}, {{b\[[0-9]+\]}});
// FUSED-NEXT: k->scale_round_add(rt, 1,
// FUSED: k->scale_round(rt, 1,
// FUSED-NEXT: k->scale_round_add(rt, 1,
// FUSED-NOT: k->convert(rt, 1,
