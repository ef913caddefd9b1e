// Open MPI 4.1.6's fixed decision rules (coll/tuned's *_intra_dec_fixed in
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag v4.1.6): collectives.selector = "ompi".
//
// Every row cites the line of that file whose `alg = N` it reproduces ("fixed.c:LINE"); the
// rows keep Open MPI's order, so the first that holds is Open MPI's choice. Open MPI compares:
//   bytes   bcast, reduce, allreduce: dsize * count of the call;
//   block   alltoall, gather, scatter: one block (dsize * scount/rcount); allgather and
//           reduce_scatter_block: one rank's block (here the whole result / p, exact for the
//           regular forms); allgatherv: the mean block (sum of rcounts * dsize / p, integer
//           division as in Open MPI); alltoallv: the communicator size only;
//   total   reduce_scatter: the whole result (sum of rcounts * dsize);
//   commute ompi_op_is_commute (user operations created as not commutative). The MPI layer keeps
//           those on its own order-preserving paths whatever the table says (see
//           wrappers/mpi/coll_args.hpp), so their rows document Open MPI's choice.
// Every comparison is a strict "<" on the communicator size and the bytes, as in the C code.
//
// Open MPI calls the chosen algorithm with faninout = 0 and segsize = 0 (the do_this calls at
// the end of each function): the segmented algorithms run with one segment (segmented_ring and
// pipeline then are ring and chain; chain's fanout 0 becomes 1, coll_base_topo.c:546), and the
// k-nomial bcast takes coll_tuned_bcast_knomial_radix = 4 (coll_tuned_bcast_decision.c:34).
// The label of each row names Open MPI's algorithm; where mgen runs another one in its place
// the label says "not built: <what runs>". Not built: split binary tree bcast, recursive-doubling
// reduce_scatter_block.
#include "colls/colls.hpp"
#include "colls/util.hpp"

namespace mgen::mpi::colls {

namespace {

bool always(const Signature&) {
  return true;
}
// The forms where no rank knows every block (gatherv, scatterv, alltoallv) or Open MPI decides by
// other rules than for the regular form (allgatherv, reduce_scatter).
bool vector_form(const Signature& s) {
  return s.bytes == kVaried || s.varied;
}

enum Measure { kTotal, kPerRank };       // the signature's bytes, or bytes / p
enum Form { kAnyForm, kVector };         // kVector: only the vector form's rows
enum Commute { kAny, kNonCommutative };  // kNonCommutative: only when the operation does not commute
constexpr int kAnyP = 0;                 // no condition on p (P < 0 means p == -P)
constexpr uint64_t kAnyBytes = 0;        // no condition on the bytes

// One `alg = N` of Open MPI's nested ifs, flattened: the rows before it took the smaller sizes.
template <Measure M, Form F, Commute C, int P, uint64_t B>
bool below(const Signature& s) {
  if (F == kVector && !vector_form(s)) return false;
  if (C == kNonCommutative && s.commutative) return false;
  if (P > 0 && s.size >= P) return false;
  if (P < 0 && s.size != -P) return false;
  if (B == kAnyBytes) return true;
  const uint64_t measured = M == kPerRank ? s.bytes / static_cast<uint64_t>(s.size) : s.bytes;
  return measured < B;
}

}  // namespace

const DecisionTable& ompi_decisions() {
  // clang-format off
  static const DecisionTable table = {{
      // coll_tuned_decision_fixed.c:464-502, ompi_coll_tuned_barrier_intra_dec_fixed (communicator size only).
      {"barrier",
       {
        {"p < 4: recursive_doubling", below<kTotal, kAnyForm, kAny, 4, kAnyBytes>, "recursive_doubling"},  // fixed.c:483
        {"p < 8: linear", below<kTotal, kAnyForm, kAny, 8, kAnyBytes>, "linear"},  // fixed.c:485
        {"p < 64: recursive_doubling", below<kTotal, kAnyForm, kAny, 64, kAnyBytes>, "recursive_doubling"},  // fixed.c:487
        {"p < 256: bruck", below<kTotal, kAnyForm, kAny, 256, kAnyBytes>, "dissemination"},  // fixed.c:489
        {"p < 512: tree", below<kTotal, kAnyForm, kAny, 512, kAnyBytes>, "tree"},  // fixed.c:491
        {"p < 1024: bruck", below<kTotal, kAnyForm, kAny, 1024, kAnyBytes>, "dissemination"},  // fixed.c:493
        {"p < 4096: tree", below<kTotal, kAnyForm, kAny, 4096, kAnyBytes>, "tree"},  // fixed.c:495
        {"any: bruck", below<kTotal, kAnyForm, kAny, kAnyP, kAnyBytes>, "dissemination"},  // fixed.c:497
       }},
      // :512-652, ompi_coll_tuned_bcast_intra_dec_fixed; bytes = dsize * count.
      {"bcast",
       {
        {"p < 4, bytes < 32: pipeline (one segment: chain)", below<kTotal, kAnyForm, kAny, 4, 32>, "chain"},  // fixed.c:541
        {"p < 4, bytes < 256: binary_tree", below<kTotal, kAnyForm, kAny, 4, 256>, "binary"},  // fixed.c:543
        {"p < 4, bytes < 512: pipeline (one segment: chain)", below<kTotal, kAnyForm, kAny, 4, 512>, "chain"},  // fixed.c:545
        {"p < 4, bytes < 1024: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 4, 1024>, "knomial"},  // fixed.c:547
        {"p < 4, bytes < 32768: basic_linear", below<kTotal, kAnyForm, kAny, 4, 32768>, "linear"},  // fixed.c:549
        {"p < 4, bytes < 131072: binary_tree", below<kTotal, kAnyForm, kAny, 4, 131072>, "binary"},  // fixed.c:551
        {"p < 4, bytes < 262144: chain (fanout 1, one segment)", below<kTotal, kAnyForm, kAny, 4, 262144>, "chain"},  // fixed.c:553
        {"p < 4, bytes < 524288: basic_linear", below<kTotal, kAnyForm, kAny, 4, 524288>, "linear"},  // fixed.c:555
        {"p < 4, bytes < 1048576: binomial", below<kTotal, kAnyForm, kAny, 4, 1048576>, "binomial"},  // fixed.c:557
        {"p < 4: binary_tree", below<kTotal, kAnyForm, kAny, 4, kAnyBytes>, "binary"},  // fixed.c:559
        {"p < 8, bytes < 64: binary_tree", below<kTotal, kAnyForm, kAny, 8, 64>, "binary"},  // fixed.c:563
        {"p < 8, bytes < 128: binomial", below<kTotal, kAnyForm, kAny, 8, 128>, "binomial"},  // fixed.c:565
        {"p < 8, bytes < 2048: binary_tree", below<kTotal, kAnyForm, kAny, 8, 2048>, "binary"},  // fixed.c:567
        {"p < 8, bytes < 8192: binomial", below<kTotal, kAnyForm, kAny, 8, 8192>, "binomial"},  // fixed.c:569
        {"p < 8, bytes < 1048576: basic_linear", below<kTotal, kAnyForm, kAny, 8, 1048576>, "linear"},  // fixed.c:571
        {"p < 8: chain (fanout 1, one segment)", below<kTotal, kAnyForm, kAny, 8, kAnyBytes>, "chain"},  // fixed.c:573
        {"p < 16, bytes < 8: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 16, 8>, "knomial"},  // fixed.c:577
        {"p < 16, bytes < 64: binary_tree", below<kTotal, kAnyForm, kAny, 16, 64>, "binary"},  // fixed.c:579
        {"p < 16, bytes < 4096: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 16, 4096>, "knomial"},  // fixed.c:581
        {"p < 16, bytes < 16384: binary_tree", below<kTotal, kAnyForm, kAny, 16, 16384>, "binary"},  // fixed.c:583
        {"p < 16, bytes < 32768: binomial", below<kTotal, kAnyForm, kAny, 16, 32768>, "binomial"},  // fixed.c:585
        {"p < 16: basic_linear", below<kTotal, kAnyForm, kAny, 16, kAnyBytes>, "linear"},  // fixed.c:587
        {"p < 32, bytes < 4096: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 32, 4096>, "knomial"},  // fixed.c:591
        {"p < 32, bytes < 1048576: binomial", below<kTotal, kAnyForm, kAny, 32, 1048576>, "binomial"},  // fixed.c:593
        {"p < 32: scatter_allgather", below<kTotal, kAnyForm, kAny, 32, kAnyBytes>, "scatter_rd_allgather"},  // fixed.c:595
        {"p < 64, bytes < 2048: binomial", below<kTotal, kAnyForm, kAny, 64, 2048>, "binomial"},  // fixed.c:599
        {"p < 64: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 64, kAnyBytes>, "knomial"},  // fixed.c:601
        {"p < 128: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 128, kAnyBytes>, "knomial"},  // fixed.c:604
        {"p < 256, bytes < 2: binomial", below<kTotal, kAnyForm, kAny, 256, 2>, "binomial"},  // fixed.c:607
        {"p < 256, bytes < 16384: binary_tree", below<kTotal, kAnyForm, kAny, 256, 16384>, "binary"},  // fixed.c:609
        {"p < 256, bytes < 32768: basic_linear", below<kTotal, kAnyForm, kAny, 256, 32768>, "linear"},  // fixed.c:611
        {"p < 256, bytes < 65536: binary_tree", below<kTotal, kAnyForm, kAny, 256, 65536>, "binary"},  // fixed.c:613
        {"p < 256: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 256, kAnyBytes>, "knomial"},  // fixed.c:615
        {"p < 1024, bytes < 16384: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 1024, 16384>, "knomial"},  // fixed.c:619
        {"p < 1024, bytes < 32768: split_binary_tree (not built: binary)", below<kTotal, kAnyForm, kAny, 1024, 32768>, "binary"},  // fixed.c:621
        {"p < 1024: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 1024, kAnyBytes>, "knomial"},  // fixed.c:623
        {"p < 2048, bytes < 524288: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 2048, 524288>, "knomial"},  // fixed.c:627
        {"p < 2048: scatter_allgather", below<kTotal, kAnyForm, kAny, 2048, kAnyBytes>, "scatter_rd_allgather"},  // fixed.c:629
        {"p < 4096, bytes < 262144: knomial (radix 4)", below<kTotal, kAnyForm, kAny, 4096, 262144>, "knomial"},  // fixed.c:633
        {"p < 4096: scatter_allgather", below<kTotal, kAnyForm, kAny, 4096, kAnyBytes>, "scatter_rd_allgather"},  // fixed.c:635
        {"bytes < 8192: knomial (radix 4)", below<kTotal, kAnyForm, kAny, kAnyP, 8192>, "knomial"},  // fixed.c:639
        {"bytes < 16384: binary_tree", below<kTotal, kAnyForm, kAny, kAnyP, 16384>, "binary"},  // fixed.c:641
        {"bytes < 262144: knomial (radix 4)", below<kTotal, kAnyForm, kAny, kAnyP, 262144>, "knomial"},  // fixed.c:643
        {"any: scatter_allgather", below<kTotal, kAnyForm, kAny, kAnyP, kAnyBytes>, "scatter_rd_allgather"},  // fixed.c:645
       }},
      // :662-814, ompi_coll_tuned_reduce_intra_dec_fixed; bytes = dsize * count.
      {"reduce",
       {
        {"op does not commute, p < 4, bytes < 8: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, 4, 8>, "in_order_binary"},  // fixed.c:694
        {"op does not commute, p < 4: linear", below<kTotal, kAnyForm, kNonCommutative, 4, kAnyBytes>, "linear"},  // fixed.c:696
        {"op does not commute, p < 8: linear", below<kTotal, kAnyForm, kNonCommutative, 8, kAnyBytes>, "linear"},  // fixed.c:699
        {"op does not commute, p < 16, bytes < 1024: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, 16, 1024>, "in_order_binary"},  // fixed.c:702
        {"op does not commute, p < 16, bytes < 8192: linear", below<kTotal, kAnyForm, kNonCommutative, 16, 8192>, "linear"},  // fixed.c:704
        {"op does not commute, p < 16, bytes < 16384: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, 16, 16384>, "in_order_binary"},  // fixed.c:706
        {"op does not commute, p < 16, bytes < 262144: linear", below<kTotal, kAnyForm, kNonCommutative, 16, 262144>, "linear"},  // fixed.c:708
        {"op does not commute, p < 16: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, 16, kAnyBytes>, "in_order_binary"},  // fixed.c:710
        {"op does not commute, p < 128: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, 128, kAnyBytes>, "in_order_binary"},  // fixed.c:713
        {"op does not commute, p < 256, bytes < 512: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, 256, 512>, "in_order_binary"},  // fixed.c:716
        {"op does not commute, p < 256, bytes < 1024: linear", below<kTotal, kAnyForm, kNonCommutative, 256, 1024>, "linear"},  // fixed.c:718
        {"op does not commute, p < 256: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, 256, kAnyBytes>, "in_order_binary"},  // fixed.c:720
        {"op does not commute: in-order_binary", below<kTotal, kAnyForm, kNonCommutative, kAnyP, kAnyBytes>, "in_order_binary"},  // fixed.c:723
        {"p < 4, bytes < 8: rabenseifner", below<kTotal, kAnyForm, kAny, 4, 8>, "rabenseifner"},  // fixed.c:728
        {"p < 4, bytes < 16: binary", below<kTotal, kAnyForm, kAny, 4, 16>, "binary"},  // fixed.c:730
        {"p < 4, bytes < 32: pipeline (one segment: chain)", below<kTotal, kAnyForm, kAny, 4, 32>, "chain"},  // fixed.c:732
        {"p < 4, bytes < 262144: linear", below<kTotal, kAnyForm, kAny, 4, 262144>, "linear"},  // fixed.c:734
        {"p < 4, bytes < 524288: pipeline (one segment: chain)", below<kTotal, kAnyForm, kAny, 4, 524288>, "chain"},  // fixed.c:736
        {"p < 4, bytes < 1048576: chain (fanout 1, one segment)", below<kTotal, kAnyForm, kAny, 4, 1048576>, "chain"},  // fixed.c:738
        {"p < 4: pipeline (one segment: chain)", below<kTotal, kAnyForm, kAny, 4, kAnyBytes>, "chain"},  // fixed.c:740
        {"p < 8, bytes < 4096: binary", below<kTotal, kAnyForm, kAny, 8, 4096>, "binary"},  // fixed.c:744
        {"p < 8, bytes < 65536: chain (fanout 1, one segment)", below<kTotal, kAnyForm, kAny, 8, 65536>, "chain"},  // fixed.c:746
        {"p < 8, bytes < 262144: binomial", below<kTotal, kAnyForm, kAny, 8, 262144>, "binomial"},  // fixed.c:748
        {"p < 8, bytes < 524288: linear", below<kTotal, kAnyForm, kAny, 8, 524288>, "linear"},  // fixed.c:750
        {"p < 8, bytes < 1048576: binomial", below<kTotal, kAnyForm, kAny, 8, 1048576>, "binomial"},  // fixed.c:752
        {"p < 8: linear", below<kTotal, kAnyForm, kAny, 8, kAnyBytes>, "linear"},  // fixed.c:754
        {"p < 16, bytes < 8192: binary", below<kTotal, kAnyForm, kAny, 16, 8192>, "binary"},  // fixed.c:758
        {"p < 16: binomial", below<kTotal, kAnyForm, kAny, 16, kAnyBytes>, "binomial"},  // fixed.c:760
        {"p < 32, bytes < 4096: binary", below<kTotal, kAnyForm, kAny, 32, 4096>, "binary"},  // fixed.c:764
        {"p < 32: binomial", below<kTotal, kAnyForm, kAny, 32, kAnyBytes>, "binomial"},  // fixed.c:766
        {"p < 256: binomial", below<kTotal, kAnyForm, kAny, 256, kAnyBytes>, "binomial"},  // fixed.c:769
        {"p < 512, bytes < 8192: binomial", below<kTotal, kAnyForm, kAny, 512, 8192>, "binomial"},  // fixed.c:772
        {"p < 512, bytes < 16384: in-order_binary", below<kTotal, kAnyForm, kAny, 512, 16384>, "in_order_binary"},  // fixed.c:774
        {"p < 512: binomial", below<kTotal, kAnyForm, kAny, 512, kAnyBytes>, "binomial"},  // fixed.c:776
        {"p < 2048: binomial", below<kTotal, kAnyForm, kAny, 2048, kAnyBytes>, "binomial"},  // fixed.c:779
        {"p < 4096, bytes < 512: binomial", below<kTotal, kAnyForm, kAny, 4096, 512>, "binomial"},  // fixed.c:782
        {"p < 4096, bytes < 1024: in-order_binary", below<kTotal, kAnyForm, kAny, 4096, 1024>, "in_order_binary"},  // fixed.c:784
        {"p < 4096, bytes < 8192: binomial", below<kTotal, kAnyForm, kAny, 4096, 8192>, "binomial"},  // fixed.c:786
        {"p < 4096, bytes < 16384: in-order_binary", below<kTotal, kAnyForm, kAny, 4096, 16384>, "in_order_binary"},  // fixed.c:788
        {"p < 4096: binomial", below<kTotal, kAnyForm, kAny, 4096, kAnyBytes>, "binomial"},  // fixed.c:790
        {"bytes < 16: binomial", below<kTotal, kAnyForm, kAny, kAnyP, 16>, "binomial"},  // fixed.c:794
        {"bytes < 32: in-order_binary", below<kTotal, kAnyForm, kAny, kAnyP, 32>, "in_order_binary"},  // fixed.c:796
        {"bytes < 1024: binomial", below<kTotal, kAnyForm, kAny, kAnyP, 1024>, "binomial"},  // fixed.c:798
        {"bytes < 2048: in-order_binary", below<kTotal, kAnyForm, kAny, kAnyP, 2048>, "in_order_binary"},  // fixed.c:800
        {"bytes < 8192: binomial", below<kTotal, kAnyForm, kAny, kAnyP, 8192>, "binomial"},  // fixed.c:802
        {"bytes < 16384: in-order_binary", below<kTotal, kAnyForm, kAny, kAnyP, 16384>, "in_order_binary"},  // fixed.c:804
        {"any: binomial", below<kTotal, kAnyForm, kAny, kAnyP, kAnyBytes>, "binomial"},  // fixed.c:806
       }},
      // :55-218, ompi_coll_tuned_allreduce_intra_dec_fixed; bytes = dsize * count.
      {"allreduce",
       {
        {"op does not commute, p < 4, bytes < 131072: recursive_doubling", below<kTotal, kAnyForm, kNonCommutative, 4, 131072>, "recursive_doubling"},  // fixed.c:83
        {"op does not commute, p < 4: basic_linear: reduce + bcast", below<kTotal, kAnyForm, kNonCommutative, 4, kAnyBytes>, "linear"},  // fixed.c:85
        {"op does not commute, p < 8: recursive_doubling", below<kTotal, kAnyForm, kNonCommutative, 8, kAnyBytes>, "recursive_doubling"},  // fixed.c:88
        {"op does not commute, p < 16, bytes < 1048576: recursive_doubling", below<kTotal, kAnyForm, kNonCommutative, 16, 1048576>, "recursive_doubling"},  // fixed.c:91
        {"op does not commute, p < 16: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kNonCommutative, 16, kAnyBytes>, "nonoverlapping"},  // fixed.c:93
        {"op does not commute, p < 128: recursive_doubling", below<kTotal, kAnyForm, kNonCommutative, 128, kAnyBytes>, "recursive_doubling"},  // fixed.c:96
        {"op does not commute, p < 256, bytes < 131072: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kNonCommutative, 256, 131072>, "nonoverlapping"},  // fixed.c:99
        {"op does not commute, p < 256, bytes < 524288: recursive_doubling", below<kTotal, kAnyForm, kNonCommutative, 256, 524288>, "recursive_doubling"},  // fixed.c:101
        {"op does not commute, p < 256: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kNonCommutative, 256, kAnyBytes>, "nonoverlapping"},  // fixed.c:103
        {"op does not commute, p < 512, bytes < 4096: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kNonCommutative, 512, 4096>, "nonoverlapping"},  // fixed.c:107
        {"op does not commute, p < 512, bytes < 524288: recursive_doubling", below<kTotal, kAnyForm, kNonCommutative, 512, 524288>, "recursive_doubling"},  // fixed.c:109
        {"op does not commute, p < 512: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kNonCommutative, 512, kAnyBytes>, "nonoverlapping"},  // fixed.c:111
        {"op does not commute, bytes < 2048: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kNonCommutative, kAnyP, 2048>, "nonoverlapping"},  // fixed.c:115
        {"op does not commute: recursive_doubling", below<kTotal, kAnyForm, kNonCommutative, kAnyP, kAnyBytes>, "recursive_doubling"},  // fixed.c:117
        {"p < 4, bytes < 8: ring", below<kTotal, kAnyForm, kAny, 4, 8>, "ring"},  // fixed.c:123
        {"p < 4, bytes < 4096: recursive_doubling", below<kTotal, kAnyForm, kAny, 4, 4096>, "recursive_doubling"},  // fixed.c:125
        {"p < 4, bytes < 8192: ring", below<kTotal, kAnyForm, kAny, 4, 8192>, "ring"},  // fixed.c:127
        {"p < 4, bytes < 16384: recursive_doubling", below<kTotal, kAnyForm, kAny, 4, 16384>, "recursive_doubling"},  // fixed.c:129
        {"p < 4, bytes < 65536: ring", below<kTotal, kAnyForm, kAny, 4, 65536>, "ring"},  // fixed.c:131
        {"p < 4, bytes < 262144: segmented_ring (segsize 0: ring)", below<kTotal, kAnyForm, kAny, 4, 262144>, "ring"},  // fixed.c:133
        {"p < 4: rabenseifner", below<kTotal, kAnyForm, kAny, 4, kAnyBytes>, "rabenseifner"},  // fixed.c:135
        {"p < 8, bytes < 16: ring", below<kTotal, kAnyForm, kAny, 8, 16>, "ring"},  // fixed.c:139
        {"p < 8, bytes < 8192: recursive_doubling", below<kTotal, kAnyForm, kAny, 8, 8192>, "recursive_doubling"},  // fixed.c:141
        {"p < 8: rabenseifner", below<kTotal, kAnyForm, kAny, 8, kAnyBytes>, "rabenseifner"},  // fixed.c:143
        {"p < 16, bytes < 8192: recursive_doubling", below<kTotal, kAnyForm, kAny, 16, 8192>, "recursive_doubling"},  // fixed.c:147
        {"p < 16: rabenseifner", below<kTotal, kAnyForm, kAny, 16, kAnyBytes>, "rabenseifner"},  // fixed.c:149
        {"p < 32, bytes < 64: segmented_ring (segsize 0: ring)", below<kTotal, kAnyForm, kAny, 32, 64>, "ring"},  // fixed.c:153
        {"p < 32, bytes < 4096: recursive_doubling", below<kTotal, kAnyForm, kAny, 32, 4096>, "recursive_doubling"},  // fixed.c:155
        {"p < 32: rabenseifner", below<kTotal, kAnyForm, kAny, 32, kAnyBytes>, "rabenseifner"},  // fixed.c:157
        {"p < 64, bytes < 128: segmented_ring (segsize 0: ring)", below<kTotal, kAnyForm, kAny, 64, 128>, "ring"},  // fixed.c:161
        {"p < 64: rabenseifner", below<kTotal, kAnyForm, kAny, 64, kAnyBytes>, "rabenseifner"},  // fixed.c:163
        {"p < 128, bytes < 262144: recursive_doubling", below<kTotal, kAnyForm, kAny, 128, 262144>, "recursive_doubling"},  // fixed.c:167
        {"p < 128: rabenseifner", below<kTotal, kAnyForm, kAny, 128, kAnyBytes>, "rabenseifner"},  // fixed.c:169
        {"p < 256, bytes < 131072: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kAny, 256, 131072>, "nonoverlapping"},  // fixed.c:173
        {"p < 256, bytes < 262144: recursive_doubling", below<kTotal, kAnyForm, kAny, 256, 262144>, "recursive_doubling"},  // fixed.c:175
        {"p < 256: rabenseifner", below<kTotal, kAnyForm, kAny, 256, kAnyBytes>, "rabenseifner"},  // fixed.c:177
        {"p < 512, bytes < 4096: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kAny, 512, 4096>, "nonoverlapping"},  // fixed.c:181
        {"p < 512: rabenseifner", below<kTotal, kAnyForm, kAny, 512, kAnyBytes>, "rabenseifner"},  // fixed.c:183
        {"p < 2048, bytes < 2048: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kAny, 2048, 2048>, "nonoverlapping"},  // fixed.c:187
        {"p < 2048, bytes < 16384: recursive_doubling", below<kTotal, kAnyForm, kAny, 2048, 16384>, "recursive_doubling"},  // fixed.c:189
        {"p < 2048: rabenseifner", below<kTotal, kAnyForm, kAny, 2048, kAnyBytes>, "rabenseifner"},  // fixed.c:191
        {"p < 4096, bytes < 2048: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kAny, 4096, 2048>, "nonoverlapping"},  // fixed.c:195
        {"p < 4096, bytes < 4096: segmented_ring (segsize 0: ring)", below<kTotal, kAnyForm, kAny, 4096, 4096>, "ring"},  // fixed.c:197
        {"p < 4096, bytes < 16384: recursive_doubling", below<kTotal, kAnyForm, kAny, 4096, 16384>, "recursive_doubling"},  // fixed.c:199
        {"p < 4096: rabenseifner", below<kTotal, kAnyForm, kAny, 4096, kAnyBytes>, "rabenseifner"},  // fixed.c:201
        {"bytes < 2048: nonoverlapping: reduce + bcast", below<kTotal, kAnyForm, kAny, kAnyP, 2048>, "nonoverlapping"},  // fixed.c:205
        {"bytes < 16384: segmented_ring (segsize 0: ring)", below<kTotal, kAnyForm, kAny, kAnyP, 16384>, "ring"},  // fixed.c:207
        {"bytes < 32768: recursive_doubling", below<kTotal, kAnyForm, kAny, kAnyP, 32768>, "recursive_doubling"},  // fixed.c:209
        {"any: rabenseifner", below<kTotal, kAnyForm, kAny, kAnyP, kAnyBytes>, "rabenseifner"},  // fixed.c:211
       }},
      // :1384-1457, ompi_coll_tuned_gather_intra_dec_fixed; block = dsize * rcount at the root.
      // Gatherv: coll/tuned leaves it to coll/basic (coll_tuned_module.c:108), a linear gather.
      {"gather",
       {
        {"gatherv (coll/basic): linear", vector_form, "linear"},
        {"p < 4, block < 2: linear_sync", below<kTotal, kAnyForm, kAny, 4, 2>, "linear_sync"},  // fixed.c:1415
        {"p < 4, block < 4: basic_linear", below<kTotal, kAnyForm, kAny, 4, 4>, "linear"},  // fixed.c:1417
        {"p < 4, block < 32768: binomial", below<kTotal, kAnyForm, kAny, 4, 32768>, "binomial"},  // fixed.c:1419
        {"p < 4, block < 65536: basic_linear", below<kTotal, kAnyForm, kAny, 4, 65536>, "linear"},  // fixed.c:1421
        {"p < 4, block < 131072: binomial", below<kTotal, kAnyForm, kAny, 4, 131072>, "binomial"},  // fixed.c:1423
        {"p < 4: linear_sync", below<kTotal, kAnyForm, kAny, 4, kAnyBytes>, "linear_sync"},  // fixed.c:1425
        {"p < 8, block < 1024: binomial", below<kTotal, kAnyForm, kAny, 8, 1024>, "binomial"},  // fixed.c:1429
        {"p < 8, block < 8192: basic_linear", below<kTotal, kAnyForm, kAny, 8, 8192>, "linear"},  // fixed.c:1431
        {"p < 8, block < 32768: binomial", below<kTotal, kAnyForm, kAny, 8, 32768>, "binomial"},  // fixed.c:1433
        {"p < 8, block < 262144: basic_linear", below<kTotal, kAnyForm, kAny, 8, 262144>, "linear"},  // fixed.c:1435
        {"p < 8: linear_sync", below<kTotal, kAnyForm, kAny, 8, kAnyBytes>, "linear_sync"},  // fixed.c:1437
        {"p < 256: binomial", below<kTotal, kAnyForm, kAny, 256, kAnyBytes>, "binomial"},  // fixed.c:1440
        {"p < 512, block < 2048: binomial", below<kTotal, kAnyForm, kAny, 512, 2048>, "binomial"},  // fixed.c:1443
        {"p < 512, block < 8192: basic_linear", below<kTotal, kAnyForm, kAny, 512, 8192>, "linear"},  // fixed.c:1445
        {"p < 512: binomial", below<kTotal, kAnyForm, kAny, 512, kAnyBytes>, "binomial"},  // fixed.c:1447
        {"any: binomial", below<kTotal, kAnyForm, kAny, kAnyP, kAnyBytes>, "binomial"},  // fixed.c:1450
       }},
      // :1480-1562, ompi_coll_tuned_scatter_intra_dec_fixed; block = dsize * scount at the root.
      // Scatterv: coll/basic (coll_tuned_module.c:114), a linear scatter.
      {"scatter",
       {
        {"scatterv (coll/basic): linear", vector_form, "linear"},
        {"p < 4, block < 2: linear_nb", below<kTotal, kAnyForm, kAny, 4, 2>, "linear"},  // fixed.c:1502
        {"p < 4, block < 131072: basic_linear", below<kTotal, kAnyForm, kAny, 4, 131072>, "linear"},  // fixed.c:1504
        {"p < 4, block < 262144: linear_nb", below<kTotal, kAnyForm, kAny, 4, 262144>, "linear"},  // fixed.c:1506
        {"p < 4: basic_linear", below<kTotal, kAnyForm, kAny, 4, kAnyBytes>, "linear"},  // fixed.c:1508
        {"p < 8, block < 2048: binomial", below<kTotal, kAnyForm, kAny, 8, 2048>, "binomial"},  // fixed.c:1512
        {"p < 8, block < 4096: basic_linear", below<kTotal, kAnyForm, kAny, 8, 4096>, "linear"},  // fixed.c:1514
        {"p < 8, block < 8192: binomial", below<kTotal, kAnyForm, kAny, 8, 8192>, "binomial"},  // fixed.c:1516
        {"p < 8, block < 32768: basic_linear", below<kTotal, kAnyForm, kAny, 8, 32768>, "linear"},  // fixed.c:1518
        {"p < 8, block < 1048576: linear_nb", below<kTotal, kAnyForm, kAny, 8, 1048576>, "linear"},  // fixed.c:1520
        {"p < 8: basic_linear", below<kTotal, kAnyForm, kAny, 8, kAnyBytes>, "linear"},  // fixed.c:1522
        {"p < 16, block < 16384: binomial", below<kTotal, kAnyForm, kAny, 16, 16384>, "binomial"},  // fixed.c:1526
        {"p < 16, block < 1048576: linear_nb", below<kTotal, kAnyForm, kAny, 16, 1048576>, "linear"},  // fixed.c:1528
        {"p < 16: basic_linear", below<kTotal, kAnyForm, kAny, 16, kAnyBytes>, "linear"},  // fixed.c:1530
        {"p < 32, block < 16384: binomial", below<kTotal, kAnyForm, kAny, 32, 16384>, "binomial"},  // fixed.c:1534
        {"p < 32, block < 32768: basic_linear", below<kTotal, kAnyForm, kAny, 32, 32768>, "linear"},  // fixed.c:1536
        {"p < 32: linear_nb", below<kTotal, kAnyForm, kAny, 32, kAnyBytes>, "linear"},  // fixed.c:1538
        {"p < 64, block < 512: binomial", below<kTotal, kAnyForm, kAny, 64, 512>, "binomial"},  // fixed.c:1542
        {"p < 64, block < 8192: linear_nb", below<kTotal, kAnyForm, kAny, 64, 8192>, "linear"},  // fixed.c:1544
        {"p < 64, block < 16384: binomial", below<kTotal, kAnyForm, kAny, 64, 16384>, "binomial"},  // fixed.c:1546
        {"p < 64: linear_nb", below<kTotal, kAnyForm, kAny, 64, kAnyBytes>, "linear"},  // fixed.c:1548
        {"block < 512: binomial", below<kTotal, kAnyForm, kAny, kAnyP, 512>, "binomial"},  // fixed.c:1552
        {"any: linear_nb", below<kTotal, kAnyForm, kAny, kAnyP, kAnyBytes>, "linear"},  // fixed.c:1554
       }},
      // Allgatherv first: :1238-1367, ompi_coll_tuned_allgatherv_intra_dec_fixed, on the mean
      // block (sum of rcounts * dsize / p); then allgather, :1091-1228, on one block (dsize * scount).
      {"allgather",
       {
        {"allgatherv, p == 2, block < 2048: ring", below<kPerRank, kVector, kAny, -2, 2048>, "ring"},  // fixed.c:1273
        {"allgatherv, p == 2, block < 4096: two_proc (= ring)", below<kPerRank, kVector, kAny, -2, 4096>, "ring"},  // fixed.c:1275
        {"allgatherv, p == 2, block < 8192: ring", below<kPerRank, kVector, kAny, -2, 8192>, "ring"},  // fixed.c:1277
        {"allgatherv, p == 2: two_proc (= ring)", below<kPerRank, kVector, kAny, -2, kAnyBytes>, "ring"},  // fixed.c:1279
        {"allgatherv, p < 8, block < 256: default: gatherv + bcast", below<kPerRank, kVector, kAny, 8, 256>, "gather_bcast"},  // fixed.c:1283
        {"allgatherv, p < 8, block < 4096: neighbor", below<kPerRank, kVector, kAny, 8, 4096>, "neighbor_exchange"},  // fixed.c:1285
        {"allgatherv, p < 8, block < 8192: ring", below<kPerRank, kVector, kAny, 8, 8192>, "ring"},  // fixed.c:1287
        {"allgatherv, p < 8, block < 16384: neighbor", below<kPerRank, kVector, kAny, 8, 16384>, "neighbor_exchange"},  // fixed.c:1289
        {"allgatherv, p < 8, block < 262144: bruck", below<kPerRank, kVector, kAny, 8, 262144>, "bruck"},  // fixed.c:1291
        {"allgatherv, p < 8: neighbor", below<kPerRank, kVector, kAny, 8, kAnyBytes>, "neighbor_exchange"},  // fixed.c:1293
        {"allgatherv, p < 16, block < 1024: default: gatherv + bcast", below<kPerRank, kVector, kAny, 16, 1024>, "gather_bcast"},  // fixed.c:1297
        {"allgatherv, p < 16: bruck", below<kPerRank, kVector, kAny, 16, kAnyBytes>, "bruck"},  // fixed.c:1299
        {"allgatherv, p < 32, block < 128: default: gatherv + bcast", below<kPerRank, kVector, kAny, 32, 128>, "gather_bcast"},  // fixed.c:1303
        {"allgatherv, p < 32, block < 262144: bruck", below<kPerRank, kVector, kAny, 32, 262144>, "bruck"},  // fixed.c:1305
        {"allgatherv, p < 32: ring", below<kPerRank, kVector, kAny, 32, kAnyBytes>, "ring"},  // fixed.c:1307
        {"allgatherv, p < 64, block < 256: default: gatherv + bcast", below<kPerRank, kVector, kAny, 64, 256>, "gather_bcast"},  // fixed.c:1311
        {"allgatherv, p < 64, block < 8192: bruck", below<kPerRank, kVector, kAny, 64, 8192>, "bruck"},  // fixed.c:1313
        {"allgatherv, p < 64: ring", below<kPerRank, kVector, kAny, 64, kAnyBytes>, "ring"},  // fixed.c:1315
        {"allgatherv, p < 128, block < 256: default: gatherv + bcast", below<kPerRank, kVector, kAny, 128, 256>, "gather_bcast"},  // fixed.c:1319
        {"allgatherv, p < 128, block < 4096: bruck", below<kPerRank, kVector, kAny, 128, 4096>, "bruck"},  // fixed.c:1321
        {"allgatherv, p < 128: ring", below<kPerRank, kVector, kAny, 128, kAnyBytes>, "ring"},  // fixed.c:1323
        {"allgatherv, p < 256, block < 1024: bruck", below<kPerRank, kVector, kAny, 256, 1024>, "bruck"},  // fixed.c:1327
        {"allgatherv, p < 256, block < 65536: neighbor", below<kPerRank, kVector, kAny, 256, 65536>, "neighbor_exchange"},  // fixed.c:1329
        {"allgatherv, p < 256: ring", below<kPerRank, kVector, kAny, 256, kAnyBytes>, "ring"},  // fixed.c:1331
        {"allgatherv, p < 512, block < 1024: bruck", below<kPerRank, kVector, kAny, 512, 1024>, "bruck"},  // fixed.c:1335
        {"allgatherv, p < 512: ring", below<kPerRank, kVector, kAny, 512, kAnyBytes>, "ring"},  // fixed.c:1337
        {"allgatherv, p < 1024, block < 512: bruck", below<kPerRank, kVector, kAny, 1024, 512>, "bruck"},  // fixed.c:1341
        {"allgatherv, p < 1024, block < 1024: default: gatherv + bcast", below<kPerRank, kVector, kAny, 1024, 1024>, "gather_bcast"},  // fixed.c:1343
        {"allgatherv, p < 1024, block < 4096: bruck", below<kPerRank, kVector, kAny, 1024, 4096>, "bruck"},  // fixed.c:1345
        {"allgatherv, p < 1024, block < 1048576: neighbor", below<kPerRank, kVector, kAny, 1024, 1048576>, "neighbor_exchange"},  // fixed.c:1347
        {"allgatherv, p < 1024: ring", below<kPerRank, kVector, kAny, 1024, kAnyBytes>, "ring"},  // fixed.c:1349
        {"allgatherv, block < 4096: bruck", below<kPerRank, kVector, kAny, kAnyP, 4096>, "bruck"},  // fixed.c:1353
        {"allgatherv: neighbor", below<kPerRank, kVector, kAny, kAnyP, kAnyBytes>, "neighbor_exchange"},  // fixed.c:1355
        {"p == 2: two_proc (= ring)", below<kPerRank, kAnyForm, kAny, -2, kAnyBytes>, "ring"},  // fixed.c:1119
        {"p < 32: recursive_doubling", below<kPerRank, kAnyForm, kAny, 32, kAnyBytes>, "recursive_doubling"},  // fixed.c:1121
        {"p < 64, block < 1024: recursive_doubling", below<kPerRank, kAnyForm, kAny, 64, 1024>, "recursive_doubling"},  // fixed.c:1124
        {"p < 64, block < 65536: neighbor", below<kPerRank, kAnyForm, kAny, 64, 65536>, "neighbor_exchange"},  // fixed.c:1126
        {"p < 64: ring", below<kPerRank, kAnyForm, kAny, 64, kAnyBytes>, "ring"},  // fixed.c:1128
        {"p < 128, block < 512: recursive_doubling", below<kPerRank, kAnyForm, kAny, 128, 512>, "recursive_doubling"},  // fixed.c:1132
        {"p < 128, block < 65536: neighbor", below<kPerRank, kAnyForm, kAny, 128, 65536>, "neighbor_exchange"},  // fixed.c:1134
        {"p < 128: ring", below<kPerRank, kAnyForm, kAny, 128, kAnyBytes>, "ring"},  // fixed.c:1136
        {"p < 256, block < 512: recursive_doubling", below<kPerRank, kAnyForm, kAny, 256, 512>, "recursive_doubling"},  // fixed.c:1140
        {"p < 256, block < 131072: neighbor", below<kPerRank, kAnyForm, kAny, 256, 131072>, "neighbor_exchange"},  // fixed.c:1142
        {"p < 256, block < 524288: ring", below<kPerRank, kAnyForm, kAny, 256, 524288>, "ring"},  // fixed.c:1144
        {"p < 256, block < 1048576: neighbor", below<kPerRank, kAnyForm, kAny, 256, 1048576>, "neighbor_exchange"},  // fixed.c:1146
        {"p < 256: ring", below<kPerRank, kAnyForm, kAny, 256, kAnyBytes>, "ring"},  // fixed.c:1148
        {"p < 512, block < 32: recursive_doubling", below<kPerRank, kAnyForm, kAny, 512, 32>, "recursive_doubling"},  // fixed.c:1152
        {"p < 512, block < 128: bruck", below<kPerRank, kAnyForm, kAny, 512, 128>, "bruck"},  // fixed.c:1154
        {"p < 512, block < 1024: recursive_doubling", below<kPerRank, kAnyForm, kAny, 512, 1024>, "recursive_doubling"},  // fixed.c:1156
        {"p < 512, block < 131072: neighbor", below<kPerRank, kAnyForm, kAny, 512, 131072>, "neighbor_exchange"},  // fixed.c:1158
        {"p < 512, block < 524288: ring", below<kPerRank, kAnyForm, kAny, 512, 524288>, "ring"},  // fixed.c:1160
        {"p < 512, block < 1048576: neighbor", below<kPerRank, kAnyForm, kAny, 512, 1048576>, "neighbor_exchange"},  // fixed.c:1162
        {"p < 512: ring", below<kPerRank, kAnyForm, kAny, 512, kAnyBytes>, "ring"},  // fixed.c:1164
        {"p < 1024, block < 64: recursive_doubling", below<kPerRank, kAnyForm, kAny, 1024, 64>, "recursive_doubling"},  // fixed.c:1168
        {"p < 1024, block < 256: bruck", below<kPerRank, kAnyForm, kAny, 1024, 256>, "bruck"},  // fixed.c:1170
        {"p < 1024, block < 2048: recursive_doubling", below<kPerRank, kAnyForm, kAny, 1024, 2048>, "recursive_doubling"},  // fixed.c:1172
        {"p < 1024: neighbor", below<kPerRank, kAnyForm, kAny, 1024, kAnyBytes>, "neighbor_exchange"},  // fixed.c:1174
        {"p < 2048, block < 4: recursive_doubling", below<kPerRank, kAnyForm, kAny, 2048, 4>, "recursive_doubling"},  // fixed.c:1178
        {"p < 2048, block < 8: bruck", below<kPerRank, kAnyForm, kAny, 2048, 8>, "bruck"},  // fixed.c:1180
        {"p < 2048, block < 16: recursive_doubling", below<kPerRank, kAnyForm, kAny, 2048, 16>, "recursive_doubling"},  // fixed.c:1182
        {"p < 2048, block < 32: bruck", below<kPerRank, kAnyForm, kAny, 2048, 32>, "bruck"},  // fixed.c:1184
        {"p < 2048, block < 256: recursive_doubling", below<kPerRank, kAnyForm, kAny, 2048, 256>, "recursive_doubling"},  // fixed.c:1186
        {"p < 2048, block < 512: bruck", below<kPerRank, kAnyForm, kAny, 2048, 512>, "bruck"},  // fixed.c:1188
        {"p < 2048, block < 4096: recursive_doubling", below<kPerRank, kAnyForm, kAny, 2048, 4096>, "recursive_doubling"},  // fixed.c:1190
        {"p < 2048: neighbor", below<kPerRank, kAnyForm, kAny, 2048, kAnyBytes>, "neighbor_exchange"},  // fixed.c:1192
        {"p < 4096, block < 32: bruck", below<kPerRank, kAnyForm, kAny, 4096, 32>, "bruck"},  // fixed.c:1196
        {"p < 4096, block < 128: recursive_doubling", below<kPerRank, kAnyForm, kAny, 4096, 128>, "recursive_doubling"},  // fixed.c:1198
        {"p < 4096, block < 512: bruck", below<kPerRank, kAnyForm, kAny, 4096, 512>, "bruck"},  // fixed.c:1200
        {"p < 4096, block < 4096: recursive_doubling", below<kPerRank, kAnyForm, kAny, 4096, 4096>, "recursive_doubling"},  // fixed.c:1202
        {"p < 4096: neighbor", below<kPerRank, kAnyForm, kAny, 4096, kAnyBytes>, "neighbor_exchange"},  // fixed.c:1204
        {"block < 2: recursive_doubling", below<kPerRank, kAnyForm, kAny, kAnyP, 2>, "recursive_doubling"},  // fixed.c:1208
        {"block < 8: bruck", below<kPerRank, kAnyForm, kAny, kAnyP, 8>, "bruck"},  // fixed.c:1210
        {"block < 16: recursive_doubling", below<kPerRank, kAnyForm, kAny, kAnyP, 16>, "recursive_doubling"},  // fixed.c:1212
        {"block < 512: bruck", below<kPerRank, kAnyForm, kAny, kAnyP, 512>, "bruck"},  // fixed.c:1214
        {"block < 4096: recursive_doubling", below<kPerRank, kAnyForm, kAny, kAnyP, 4096>, "recursive_doubling"},  // fixed.c:1216
        {"any: neighbor", below<kPerRank, kAnyForm, kAny, kAnyP, kAnyBytes>, "neighbor_exchange"},  // fixed.c:1218
       }},
      // In place: every base algorithm hands the call to mca_coll_base_alltoall_intra_basic_inplace
      // (coll_base_alltoall.c:170, 231, 375, 530, 613), pairwise exchanges. Alltoallv: :418-454 on
      // the communicator size only. Alltoall: :228-411 on one block (dsize * scount).
      {"alltoall",
       {
        {"in place: basic_inplace (here: pairwise)", [](const Signature& s) { return s.in_place; }, "pairwise"},
        {"alltoallv, p < 4: pairwise", below<kTotal, kVector, kAny, 4, kAnyBytes>, "pairwise_shift"},  // fixed.c:437
        {"alltoallv, p < 64: basic_linear", below<kTotal, kVector, kAny, 64, kAnyBytes>, "linear"},  // fixed.c:439
        {"alltoallv, p < 128: pairwise", below<kTotal, kVector, kAny, 128, kAnyBytes>, "pairwise_shift"},  // fixed.c:441
        {"alltoallv, p < 256: basic_linear", below<kTotal, kVector, kAny, 256, kAnyBytes>, "linear"},  // fixed.c:443
        {"alltoallv, p < 1024: pairwise", below<kTotal, kVector, kAny, 1024, kAnyBytes>, "pairwise_shift"},  // fixed.c:445
        {"alltoallv: basic_linear", below<kTotal, kVector, kAny, kAnyP, kAnyBytes>, "linear"},  // fixed.c:447
        {"p == 2, block < 2: pairwise", below<kTotal, kAnyForm, kAny, -2, 2>, "pairwise_shift"},  // fixed.c:255
        {"p == 2, block < 4: two_proc (= pairwise)", below<kTotal, kAnyForm, kAny, -2, 4>, "pairwise_shift"},  // fixed.c:257
        {"p == 2, block < 16: pairwise", below<kTotal, kAnyForm, kAny, -2, 16>, "pairwise_shift"},  // fixed.c:259
        {"p == 2, block < 64: two_proc (= pairwise)", below<kTotal, kAnyForm, kAny, -2, 64>, "pairwise_shift"},  // fixed.c:261
        {"p == 2, block < 256: pairwise", below<kTotal, kAnyForm, kAny, -2, 256>, "pairwise_shift"},  // fixed.c:263
        {"p == 2, block < 4096: two_proc (= pairwise)", below<kTotal, kAnyForm, kAny, -2, 4096>, "pairwise_shift"},  // fixed.c:265
        {"p == 2, block < 32768: pairwise", below<kTotal, kAnyForm, kAny, -2, 32768>, "pairwise_shift"},  // fixed.c:267
        {"p == 2, block < 262144: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, -2, 262144>, "linear"},  // fixed.c:269
        {"p == 2, block < 1048576: two_proc (= pairwise)", below<kTotal, kAnyForm, kAny, -2, 1048576>, "pairwise_shift"},  // fixed.c:271
        {"p == 2: pairwise", below<kTotal, kAnyForm, kAny, -2, kAnyBytes>, "pairwise_shift"},  // fixed.c:273
        {"p < 8, block < 8192: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 8, 8192>, "linear"},  // fixed.c:277
        {"p < 8, block < 16384: linear", below<kTotal, kAnyForm, kAny, 8, 16384>, "linear"},  // fixed.c:279
        {"p < 8, block < 65536: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 8, 65536>, "linear"},  // fixed.c:281
        {"p < 8, block < 524288: linear", below<kTotal, kAnyForm, kAny, 8, 524288>, "linear"},  // fixed.c:283
        {"p < 8, block < 1048576: pairwise", below<kTotal, kAnyForm, kAny, 8, 1048576>, "pairwise_shift"},  // fixed.c:285
        {"p < 8: linear", below<kTotal, kAnyForm, kAny, 8, kAnyBytes>, "linear"},  // fixed.c:287
        {"p < 16, block < 262144: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 16, 262144>, "linear"},  // fixed.c:291
        {"p < 16: linear", below<kTotal, kAnyForm, kAny, 16, kAnyBytes>, "linear"},  // fixed.c:293
        {"p < 32, block < 4: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 32, 4>, "linear"},  // fixed.c:297
        {"p < 32, block < 512: modified_bruck", below<kTotal, kAnyForm, kAny, 32, 512>, "bruck"},  // fixed.c:299
        {"p < 32, block < 8192: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 32, 8192>, "linear"},  // fixed.c:301
        {"p < 32, block < 32768: linear", below<kTotal, kAnyForm, kAny, 32, 32768>, "linear"},  // fixed.c:303
        {"p < 32, block < 262144: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 32, 262144>, "linear"},  // fixed.c:305
        {"p < 32, block < 524288: linear", below<kTotal, kAnyForm, kAny, 32, 524288>, "linear"},  // fixed.c:307
        {"p < 32: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 32, kAnyBytes>, "linear"},  // fixed.c:309
        {"p < 64, block < 512: modified_bruck", below<kTotal, kAnyForm, kAny, 64, 512>, "bruck"},  // fixed.c:313
        {"p < 64, block < 524288: linear", below<kTotal, kAnyForm, kAny, 64, 524288>, "linear"},  // fixed.c:315
        {"p < 64: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 64, kAnyBytes>, "linear"},  // fixed.c:317
        {"p < 128, block < 1024: modified_bruck", below<kTotal, kAnyForm, kAny, 128, 1024>, "bruck"},  // fixed.c:321
        {"p < 128, block < 2048: linear", below<kTotal, kAnyForm, kAny, 128, 2048>, "linear"},  // fixed.c:323
        {"p < 128, block < 4096: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 128, 4096>, "linear"},  // fixed.c:325
        {"p < 128, block < 262144: linear", below<kTotal, kAnyForm, kAny, 128, 262144>, "linear"},  // fixed.c:327
        {"p < 128: pairwise", below<kTotal, kAnyForm, kAny, 128, kAnyBytes>, "pairwise_shift"},  // fixed.c:329
        {"p < 256, block < 1024: modified_bruck", below<kTotal, kAnyForm, kAny, 256, 1024>, "bruck"},  // fixed.c:333
        {"p < 256, block < 2048: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 256, 2048>, "linear"},  // fixed.c:335
        {"p < 256, block < 262144: linear", below<kTotal, kAnyForm, kAny, 256, 262144>, "linear"},  // fixed.c:337
        {"p < 256: pairwise", below<kTotal, kAnyForm, kAny, 256, kAnyBytes>, "pairwise_shift"},  // fixed.c:339
        {"p < 512, block < 1024: modified_bruck", below<kTotal, kAnyForm, kAny, 512, 1024>, "bruck"},  // fixed.c:343
        {"p < 512, block < 8192: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 512, 8192>, "linear"},  // fixed.c:345
        {"p < 512, block < 32768: linear", below<kTotal, kAnyForm, kAny, 512, 32768>, "linear"},  // fixed.c:347
        {"p < 512: pairwise", below<kTotal, kAnyForm, kAny, 512, kAnyBytes>, "pairwise_shift"},  // fixed.c:349
        {"p < 1024, block < 512: modified_bruck", below<kTotal, kAnyForm, kAny, 1024, 512>, "bruck"},  // fixed.c:353
        {"p < 1024, block < 8192: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 1024, 8192>, "linear"},  // fixed.c:355
        {"p < 1024, block < 16384: linear", below<kTotal, kAnyForm, kAny, 1024, 16384>, "linear"},  // fixed.c:357
        {"p < 1024, block < 131072: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 1024, 131072>, "linear"},  // fixed.c:359
        {"p < 1024, block < 262144: linear", below<kTotal, kAnyForm, kAny, 1024, 262144>, "linear"},  // fixed.c:361
        {"p < 1024: pairwise", below<kTotal, kAnyForm, kAny, 1024, kAnyBytes>, "pairwise_shift"},  // fixed.c:363
        {"p < 2048, block < 512: modified_bruck", below<kTotal, kAnyForm, kAny, 2048, 512>, "bruck"},  // fixed.c:367
        {"p < 2048, block < 1024: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 2048, 1024>, "linear"},  // fixed.c:369
        {"p < 2048, block < 2048: linear", below<kTotal, kAnyForm, kAny, 2048, 2048>, "linear"},  // fixed.c:371
        {"p < 2048, block < 16384: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 2048, 16384>, "linear"},  // fixed.c:373
        {"p < 2048, block < 262144: linear", below<kTotal, kAnyForm, kAny, 2048, 262144>, "linear"},  // fixed.c:375
        {"p < 2048: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 2048, kAnyBytes>, "linear"},  // fixed.c:377
        {"p < 4096, block < 1024: modified_bruck", below<kTotal, kAnyForm, kAny, 4096, 1024>, "bruck"},  // fixed.c:381
        {"p < 4096, block < 4096: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 4096, 4096>, "linear"},  // fixed.c:383
        {"p < 4096, block < 8192: linear", below<kTotal, kAnyForm, kAny, 4096, 8192>, "linear"},  // fixed.c:385
        {"p < 4096, block < 131072: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, 4096, 131072>, "linear"},  // fixed.c:387
        {"p < 4096: linear", below<kTotal, kAnyForm, kAny, 4096, kAnyBytes>, "linear"},  // fixed.c:389
        {"block < 2048: modified_bruck", below<kTotal, kAnyForm, kAny, kAnyP, 2048>, "bruck"},  // fixed.c:393
        {"block < 8192: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, kAnyP, 8192>, "linear"},  // fixed.c:395
        {"block < 16384: linear", below<kTotal, kAnyForm, kAny, kAnyP, 16384>, "linear"},  // fixed.c:397
        {"block < 32768: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, kAnyP, 32768>, "linear"},  // fixed.c:399
        {"block < 65536: linear", below<kTotal, kAnyForm, kAny, kAnyP, 65536>, "linear"},  // fixed.c:401
        {"any: linear_sync (max_requests 0: all at once = linear)", below<kTotal, kAnyForm, kAny, kAnyP, kAnyBytes>, "linear"},  // fixed.c:403
       }},
      // Reduce_scatter first: :824-962 on the whole result (sum of rcounts * dsize); then
      // reduce_scatter_block, :972-1082, on one block (dsize * rcount).
      {"reduce_scatter",
       {
        {"reduce_scatter, op does not commute: non-overlapping: reduce + scatterv", below<kTotal, kVector, kNonCommutative, kAnyP, kAnyBytes>, "reduce_scatterv"},  // fixed.c:854
        {"reduce_scatter, p < 4, total < 65536: ring", below<kTotal, kVector, kAny, 4, 65536>, "ring"},  // fixed.c:858
        {"reduce_scatter, p < 4, total < 131072: butterfly", below<kTotal, kVector, kAny, 4, 131072>, "butterfly"},  // fixed.c:860
        {"reduce_scatter, p < 4: ring", below<kTotal, kVector, kAny, 4, kAnyBytes>, "ring"},  // fixed.c:862
        {"reduce_scatter, p < 8, total < 8: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 8, 8>, "reduce_scatterv"},  // fixed.c:866
        {"reduce_scatter, p < 8, total < 262144: recursive_halving", below<kTotal, kVector, kAny, 8, 262144>, "recursive_halving"},  // fixed.c:868
        {"reduce_scatter, p < 8: ring", below<kTotal, kVector, kAny, 8, kAnyBytes>, "ring"},  // fixed.c:870
        {"reduce_scatter, p < 32, total < 262144: recursive_halving", below<kTotal, kVector, kAny, 32, 262144>, "recursive_halving"},  // fixed.c:874
        {"reduce_scatter, p < 32: ring", below<kTotal, kVector, kAny, 32, kAnyBytes>, "ring"},  // fixed.c:876
        {"reduce_scatter, p < 64, total < 64: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 64, 64>, "reduce_scatterv"},  // fixed.c:880
        {"reduce_scatter, p < 64, total < 2048: recursive_halving", below<kTotal, kVector, kAny, 64, 2048>, "recursive_halving"},  // fixed.c:882
        {"reduce_scatter, p < 64, total < 524288: butterfly", below<kTotal, kVector, kAny, 64, 524288>, "butterfly"},  // fixed.c:884
        {"reduce_scatter, p < 64: ring", below<kTotal, kVector, kAny, 64, kAnyBytes>, "ring"},  // fixed.c:886
        {"reduce_scatter, p < 128, total < 256: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 128, 256>, "reduce_scatterv"},  // fixed.c:890
        {"reduce_scatter, p < 128, total < 512: recursive_halving", below<kTotal, kVector, kAny, 128, 512>, "recursive_halving"},  // fixed.c:892
        {"reduce_scatter, p < 128, total < 2048: butterfly", below<kTotal, kVector, kAny, 128, 2048>, "butterfly"},  // fixed.c:894
        {"reduce_scatter, p < 128, total < 4096: recursive_halving", below<kTotal, kVector, kAny, 128, 4096>, "recursive_halving"},  // fixed.c:896
        {"reduce_scatter, p < 128: butterfly", below<kTotal, kVector, kAny, 128, kAnyBytes>, "butterfly"},  // fixed.c:898
        {"reduce_scatter, p < 256, total < 256: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 256, 256>, "reduce_scatterv"},  // fixed.c:902
        {"reduce_scatter, p < 256, total < 512: recursive_halving", below<kTotal, kVector, kAny, 256, 512>, "recursive_halving"},  // fixed.c:904
        {"reduce_scatter, p < 256: butterfly", below<kTotal, kVector, kAny, 256, kAnyBytes>, "butterfly"},  // fixed.c:906
        {"reduce_scatter, p < 512, total < 256: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 512, 256>, "reduce_scatterv"},  // fixed.c:910
        {"reduce_scatter, p < 512, total < 1024: recursive_halving", below<kTotal, kVector, kAny, 512, 1024>, "recursive_halving"},  // fixed.c:912
        {"reduce_scatter, p < 512: butterfly", below<kTotal, kVector, kAny, 512, kAnyBytes>, "butterfly"},  // fixed.c:914
        {"reduce_scatter, p < 1024, total < 512: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 1024, 512>, "reduce_scatterv"},  // fixed.c:918
        {"reduce_scatter, p < 1024, total < 2048: recursive_halving", below<kTotal, kVector, kAny, 1024, 2048>, "recursive_halving"},  // fixed.c:920
        {"reduce_scatter, p < 1024, total < 8192: butterfly", below<kTotal, kVector, kAny, 1024, 8192>, "butterfly"},  // fixed.c:922
        {"reduce_scatter, p < 1024, total < 16384: recursive_halving", below<kTotal, kVector, kAny, 1024, 16384>, "recursive_halving"},  // fixed.c:924
        {"reduce_scatter, p < 1024: butterfly", below<kTotal, kVector, kAny, 1024, kAnyBytes>, "butterfly"},  // fixed.c:926
        {"reduce_scatter, p < 2048, total < 512: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 2048, 512>, "reduce_scatterv"},  // fixed.c:930
        {"reduce_scatter, p < 2048, total < 4096: recursive_halving", below<kTotal, kVector, kAny, 2048, 4096>, "recursive_halving"},  // fixed.c:932
        {"reduce_scatter, p < 2048, total < 16384: butterfly", below<kTotal, kVector, kAny, 2048, 16384>, "butterfly"},  // fixed.c:934
        {"reduce_scatter, p < 2048, total < 32768: recursive_halving", below<kTotal, kVector, kAny, 2048, 32768>, "recursive_halving"},  // fixed.c:936
        {"reduce_scatter, p < 2048: butterfly", below<kTotal, kVector, kAny, 2048, kAnyBytes>, "butterfly"},  // fixed.c:938
        {"reduce_scatter, p < 4096, total < 512: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, 4096, 512>, "reduce_scatterv"},  // fixed.c:942
        {"reduce_scatter, p < 4096, total < 4096: recursive_halving", below<kTotal, kVector, kAny, 4096, 4096>, "recursive_halving"},  // fixed.c:944
        {"reduce_scatter, p < 4096: butterfly", below<kTotal, kVector, kAny, 4096, kAnyBytes>, "butterfly"},  // fixed.c:946
        {"reduce_scatter, total < 1024: non-overlapping: reduce + scatterv", below<kTotal, kVector, kAny, kAnyP, 1024>, "reduce_scatterv"},  // fixed.c:950
        {"reduce_scatter, total < 8192: recursive_halving", below<kTotal, kVector, kAny, kAnyP, 8192>, "recursive_halving"},  // fixed.c:952
        {"reduce_scatter: butterfly", below<kTotal, kVector, kAny, kAnyP, kAnyBytes>, "butterfly"},  // fixed.c:954
        {"op does not commute: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kNonCommutative, kAnyP, kAnyBytes>, "reduce_scatterv"},  // fixed.c:1000
        {"p < 4, block < 4: recursive_doubling (not built: recursive_halving)", below<kPerRank, kAnyForm, kAny, 4, 4>, "recursive_halving"},  // fixed.c:1004
        {"p < 4, block < 8: butterfly", below<kPerRank, kAnyForm, kAny, 4, 8>, "butterfly"},  // fixed.c:1006
        {"p < 4, block < 16: recursive_halving", below<kPerRank, kAnyForm, kAny, 4, 16>, "recursive_halving"},  // fixed.c:1008
        {"p < 4, block < 128: butterfly", below<kPerRank, kAnyForm, kAny, 4, 128>, "butterfly"},  // fixed.c:1010
        {"p < 4, block < 256: recursive_halving", below<kPerRank, kAnyForm, kAny, 4, 256>, "recursive_halving"},  // fixed.c:1012
        {"p < 4, block < 4096: butterfly", below<kPerRank, kAnyForm, kAny, 4, 4096>, "butterfly"},  // fixed.c:1014
        {"p < 4, block < 8192: recursive_halving", below<kPerRank, kAnyForm, kAny, 4, 8192>, "recursive_halving"},  // fixed.c:1016
        {"p < 4, block < 131072: butterfly", below<kPerRank, kAnyForm, kAny, 4, 131072>, "butterfly"},  // fixed.c:1018
        {"p < 4: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, 4, kAnyBytes>, "reduce_scatterv"},  // fixed.c:1020
        {"p < 8, block < 8: recursive_halving", below<kPerRank, kAnyForm, kAny, 8, 8>, "recursive_halving"},  // fixed.c:1024
        {"p < 8, block < 32: recursive_doubling (not built: recursive_halving)", below<kPerRank, kAnyForm, kAny, 8, 32>, "recursive_halving"},  // fixed.c:1026
        {"p < 8, block < 256: butterfly", below<kPerRank, kAnyForm, kAny, 8, 256>, "butterfly"},  // fixed.c:1028
        {"p < 8, block < 8192: recursive_halving", below<kPerRank, kAnyForm, kAny, 8, 8192>, "recursive_halving"},  // fixed.c:1030
        {"p < 8, block < 16384: butterfly", below<kPerRank, kAnyForm, kAny, 8, 16384>, "butterfly"},  // fixed.c:1032
        {"p < 8, block < 1048576: recursive_halving", below<kPerRank, kAnyForm, kAny, 8, 1048576>, "recursive_halving"},  // fixed.c:1034
        {"p < 8: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, 8, kAnyBytes>, "reduce_scatterv"},  // fixed.c:1036
        {"p < 16, block < 4: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, 16, 4>, "reduce_scatterv"},  // fixed.c:1040
        {"p < 16, block < 32: recursive_halving", below<kPerRank, kAnyForm, kAny, 16, 32>, "recursive_halving"},  // fixed.c:1042
        {"p < 16, block < 128: butterfly", below<kPerRank, kAnyForm, kAny, 16, 128>, "butterfly"},  // fixed.c:1044
        {"p < 16, block < 524288: recursive_halving", below<kPerRank, kAnyForm, kAny, 16, 524288>, "recursive_halving"},  // fixed.c:1046
        {"p < 16, block < 4194304: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, 16, 4194304>, "reduce_scatterv"},  // fixed.c:1048
        {"p < 16: butterfly", below<kPerRank, kAnyForm, kAny, 16, kAnyBytes>, "butterfly"},  // fixed.c:1050
        {"p < 32, block < 32: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, 32, 32>, "reduce_scatterv"},  // fixed.c:1054
        {"p < 32, block < 524288: recursive_halving", below<kPerRank, kAnyForm, kAny, 32, 524288>, "recursive_halving"},  // fixed.c:1056
        {"p < 32, block < 2097152: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, 32, 2097152>, "reduce_scatterv"},  // fixed.c:1058
        {"p < 32, block < 4194304: recursive_halving", below<kPerRank, kAnyForm, kAny, 32, 4194304>, "recursive_halving"},  // fixed.c:1060
        {"p < 32: butterfly", below<kPerRank, kAnyForm, kAny, 32, kAnyBytes>, "butterfly"},  // fixed.c:1062
        {"block < 4: recursive_halving", below<kPerRank, kAnyForm, kAny, kAnyP, 4>, "recursive_halving"},  // fixed.c:1066
        {"block < 16: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, kAnyP, 16>, "reduce_scatterv"},  // fixed.c:1068
        {"block < 65536: butterfly", below<kPerRank, kAnyForm, kAny, kAnyP, 65536>, "butterfly"},  // fixed.c:1070
        {"block < 262144: basic_linear: reduce + scatter", below<kPerRank, kAnyForm, kAny, kAnyP, 262144>, "reduce_scatterv"},  // fixed.c:1072
        {"any: butterfly", below<kPerRank, kAnyForm, kAny, kAnyP, kAnyBytes>, "butterfly"},  // fixed.c:1074
       }},
      // coll/tuned leaves scan and exscan to coll/basic (coll_tuned_module.c:106, 112): a chain.
      {"scan",
       {
        {"any: linear (coll/basic)", always, "linear"},
       }},
      {"exscan",
       {
        {"any: linear (coll/basic)", always, "linear"},
       }},
  }};
  // clang-format on
  return table;
}

}  // namespace mgen::mpi::colls
