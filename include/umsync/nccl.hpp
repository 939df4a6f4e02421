// umsync/nccl.hpp: umsync's NCCL support in one include (link umsync::nccl, which links
// libnccl): communicators, all-reduce on typed stream-bound memory, element types to NCCL
// data types, nccl_error. Left out of umsync.hpp, so programs that do not use NCCL need none.
//
//   #include <umsync/nccl.hpp>
//   auto comms = umsync::nccl::communicator::init_all();
//   umsync::nccl::all_reduce(bucket, umsync::nccl::reduction::sum, comms[0], comm_stream);
#pragma once

#include <umsync/nccl/collectives.hpp>
#include <umsync/nccl/communicator.hpp>
#include <umsync/nccl/datatype.hpp>
#include <umsync/nccl/nccl_error.hpp>
