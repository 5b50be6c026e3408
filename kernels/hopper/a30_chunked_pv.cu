// a30_chunked_pv — intent: inside one free-running consumer warpgroup, keep the tensor cores and
// the exp unit busy at the same time. Every free-running schedule (a13's two warpgroups, a17's
// three, a20-a26) runs a key tile as Q·Kᵀ, wait, the whole softmax, P·V, wait: while the warpgroup
// computes its 64 (BN = 128) exponentials per thread the tensor cores have only the other
// warpgroups' work, and while its P·V runs the exp unit has only theirs. Session 11's per-SASS
// stall samples (docs/ladder.md) put 29.5 % of a21's samples on MUFU.EX2 (cuDNN 7 %) and its issue
// slots 41 % busy against cuDNN's 52 % on the D = 64 chunks; a15's overlap (the softmax of tile j
// under P(j-1)·V(j-1), two S accumulators) cost 7-25 % on the free-running schedules (registers,
// and ptxas hoisting the P·V wait), and strict turns changed nothing (session 12).
// Changed vs a21 (D = 64 short tiles) and a26 (D = 64 192-row tiles, trimmed): on those
// free-running paths the warpgroup issues P·V in two parts of 64 keys (four k16 slices each), the
// first as soon as its exponentials and packing are done, so that it runs on the tensor cores
// while the exp unit computes the second half; one wait after the last part. No second S
// accumulator (the registers a15 needed), the same k16 order into O (bit-identical results to
// the rung each path comes from). Parts of 32 keys spill 44 bytes on the three-warpgroup
// persistent path (ptxas), parts of 64 none. D = 128 is a26's: its chunked persistent path spills
// 12-24 bytes (O takes 64 registers a thread) and the audit allows no local memory. D = 256 and
// D = 128's long sequences keep a15's batched schedule (a24's, unchanged). The D = 64 paths are
// chosen as in a21 (128-row tiles where they pad less) and a26.
// Prediction (written before its first device run; bf16 and fp16 alike, against the best of
// a21/a24/a26 on each problem in the same run): D = 64 256- and 512-query chunks +4..+10 %
// (0.78-0.83x -> 0.82-0.90x cuDNN), 128-query chunks +2..+6 %; D = 64 16k tokens +2..+6 %; causal
// alike; D = 128 and D = 256 unchanged (a26's and a24's kernels).

#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA30ChunkedPv() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a30_chunked_pv";
  info.revision = 30;
  info.title =
      "a21/a26 at D=64 with P·V issued in two 64-key parts as their exponentials finish: the "
      "tensor cores run the first while the exp unit computes the second";
  info.changed =
      "D=64's free-running paths (128-row short tiles as a21, 192-row trimmed tiles as a26) issue "
      "P·V in two 64-key parts, one wait after both; D=128 and 256 as a26";
  constexpr unsigned kShort64 = kDirectRescale | kWarpSpec | kCondRescale | kSplitKV | kChunkedPV;
  constexpr unsigned kPersistent128 =
      kDirectRescale | kWarpSpec | kCondRescale | kPersistent | kDynamicSchedule | kTrimWarpgroups;
  return MakeEntry<kA17Wide | kSplitKV,
                   kA17Narrow | kPersistent | kDynamicSchedule | kTrimWarpgroups | kChunkedPV,
                   kA17Narrow | kSplitKV | kTrimWarpgroups | kChunkedPV, kShort64, kPersistent128>(
      std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
