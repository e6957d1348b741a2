// RUN: ringfuse-translate --emit-cpp %s --verify-diagnostics --split-input-file

#Q = #rns.basis<Q: [97, 193]>
module {
  // expected-error@+1 {{ringfuse.inputs describes 4 buffers, but the function has 2}}
  func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) -> (!kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>)
      attributes {ringfuse.inputs = array<i64: 2, 2>, ringfuse.outputs = array<i64: 2>,
                  ringfuse.params = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>} {
    return %x, %y : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>
  }
}

// -----

#Q = #rns.basis<Q: [97, 193]>
module {
  // expected-error@+1 {{ringfuse.outputs lists a value of 5 components (0, 2 or 3 expected)}}
  func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) -> (!kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>)
      attributes {ringfuse.inputs = array<i64: 2>, ringfuse.outputs = array<i64: 5>,
                  ringfuse.params = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>} {
    return %x, %y : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>
  }
}

// -----

#Q = #rns.basis<Q: [97, 193]>
module {
  // expected-error@+1 {{emit-cpp needs the kernel program of a traced circuit}}
  func.func @f(%x: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q> {
    return %x : !kernel.buffer<16, #Q>
  }
}

// -----

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
#Q = #rns.basis<Q: [193, 257]>
module {
  func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) -> (!kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) attributes {kernel.slots = 1, ringfuse.inputs = array<i64: 2>, ringfuse.outputs = array<i64: 2>, ringfuse.params = #p} {
    // expected-error@+1 {{has no slot: run kernel-plan-slots before emitting}}
    %0 = kernel.alloc : !kernel.buffer<16, #Q>
    kernel.launch "automorphism" ins(%x : !kernel.buffer<16, #Q>) outs(%0 : !kernel.buffer<16, #Q>) {galois_element = 3 : i64}
    return %0, %y : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>
  }
}

// -----

// Only a planned program is emitted: the kernel dialect verifies its slots,
// buffers and moduli as a whole.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
#Q = #rns.basis<Q: [193, 257]>
module {
  // expected-error@+1 {{is not a planned kernel program (no 'kernel.slots'): run kernel-plan-slots before emitting}}
  func.func @f(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) -> (!kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) attributes {ringfuse.inputs = array<i64: 2>, ringfuse.outputs = array<i64: 2>, ringfuse.params = #p} {
    return %x, %y : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>
  }
}
