#ifndef RINGFUSE_PASSES_TD
#define RINGFUSE_PASSES_TD

include "mlir/Pass/PassBase.td"

def BFVExpandSlotSums : Pass<"bfv-expand-slot-sums", "::mlir::ModuleOp"> {
  let summary = "Expand bfv.sum_slots into its rotate-and-add tree";
  let description = [{
    `bfv.sum_slots %x` becomes, for a row length of N/2 slots,

      acc = x; for s = 1, 2, 4, ..., N/4: acc = acc + rotate(acc, s);
      acc = acc + swap_rows(acc)

    after which every slot holds the sum of all N slots: log2(N/2) rotations
    and one row swap, each a Galois automorphism with its key switch. The tree
    depends on N, so a traced circuit keeps `bfv.sum_slots` until parameters
    are chosen; expanding one whose N is not known yet is an error.
  }];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
  let statistics = [
    Statistic<"numSumsExpanded", "sums-expanded",
              "Number of bfv.sum_slots ops expanded">,
    Statistic<"numRotationsInserted", "rotations-inserted",
              "Number of bfv.rotate and bfv.swap_rows ops inserted">
  ];
}

#endif // RINGFUSE_PASSES_TD
