// umsync/sync/bulk_copy.hpp: bulk copies between global and shared memory (sm_90), one-dimensional
// (cp.async.bulk) or boxes of a tensor map (cp.async.bulk.tensor, tensor_map.hpp), typed so that
// a transaction barrier expects exactly the bytes its copies deliver and a store's shared source
// is reused only after the store has read it.
//
//   // global -> shared: the fill adds up the copies' bytes and arrives with that expect_tx
//   if (threadIdx.x == 0) {
//     umsync::bulk_fill(bar).load(a.first_use(), src_a).load(b.first_use(), src_b).arrive();
//   }
//   auto tile_a = bar.wait(phase, a).write();                 // transaction_barrier.hpp
//
//   // a stage of two boxes (a GEMM's A and B tiles): one arrive expects both maps' box bytes
//   umsync::bulk_fill(bar).load(a_tile.first_use(), a_map.box_at(k, m))
//                         .load(b_tile.first_use(), b_map.box_at(k, n)).arrive();
//
//   // shared -> global: commit_group on issue, wait_group.read before the tile is given back
//   auto visible = std::move(tile_a).publish_to_async();     // proxy.hpp
//   auto token = umsync::bulk_store(dst, std::move(visible), threadIdx.x == 0);
//   auto writable = std::move(token).wait();                  // wait_group.read 0, then __syncthreads()
//   auto token2 = umsync::tensor_store(d_map.box_at(n, m), std::move(visible_box), threadIdx.x == 0);
//
// Sizes known at compile time (whole tiles, load<Count>) make the expect_tx count an immediate
// and are checked at compile time (multiples of 16 bytes: PTX ISA, cp.async.bulk); a count given
// at run time is added at run time, and UMSYNC_DEBUG builds trap on a size or an address that
// breaks the rule. The fill is nodiscard and must end with arrive(); the token must be waited:
// UMSYNC_DEBUG builds trap where either is dropped unfinished.
//
// The fill lives in bulk_fill.hpp, the store and its token in bulk_store.hpp, the rules both state
// in detail/copy_rules.hpp; this header is both.
#pragma once

#include <umsync/sync/bulk_fill.hpp>
#include <umsync/sync/bulk_store.hpp>
