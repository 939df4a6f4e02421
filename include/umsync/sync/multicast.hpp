// umsync/sync/multicast.hpp: the blocks of a cluster a tensor load multicasts to, checked against
// the cluster's size at compile time (bulk_fill.hpp's multicast load).
#pragma once

#include <umsync/config.hpp>

#include <cstdint>

UMSYNC_NAMESPACE_BEGIN

/// The blocks a tensor load multicasts to (cp.async.bulk.tensor .multicast::cluster, sm_90a): bit
/// r of Mask is the block of rank r in a cluster of ClusterBlocks. The data land at the same
/// offset in every block of the mask, and complete on each one's barrier at the same offset. A
/// multicast load stands for one box from each block of the mask, the convention of a stage split
/// across a cluster (each block loads its share for all): so each receiving barrier expects the
/// box's bytes times the blocks in the mask, and every block of the mask issues such a load.
template <unsigned ClusterBlocks, std::uint16_t Mask>
struct multicast_to {
  static_assert(ClusterBlocks >= 1 && ClusterBlocks <= 16,
                "umsync: a cluster multicasts to at most 16 blocks (PTX ISA, .multicast::cluster ctaMask)");
  static_assert(Mask != 0, "umsync: a multicast mask names at least one block");
  static_assert(ClusterBlocks == 16 || Mask < (1U << ClusterBlocks),
                "umsync: a multicast mask names a block past the cluster's (bit r is the block of rank r)");
  static constexpr unsigned cluster_blocks = ClusterBlocks;
  static constexpr std::uint16_t mask = Mask;
  static constexpr unsigned receivers = unsigned(__builtin_popcount(Mask));
};

UMSYNC_NAMESPACE_END
