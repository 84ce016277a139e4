// How one transfer is spread over the DMA engines of a core (docs/chip-model.md §3.1).
//
// Hardware gives each of a core's 16 DMA engines a fixed group of SBUF partitions: with 128
// partitions, engine k moves the rows of partitions 8k .. 8k+7 ([DMA-INTRO]: "each DMA engine
// is typically responsible for moving data for eight SBUF partitions"; a [4, 4096] load uses one
// engine). So a transfer with an SBUF side is split by the partitions of that side (the
// destination's when both are SBUF): partition p goes to engine (p / partitions_per_engine) mod
// engines. A transfer with no SBUF side (HBM to HBM) has no partitions to follow; it is split
// evenly by bytes, engine k taking the k-th sixteenth (docs/decisions.md, "DMA engines").
//
// Each engine's share is counted in bytes and descriptor elements: an element is one contiguous
// run (the shorter of the two sides' innermost runs, never longer than a partition's bytes); the
// per-element overhead of the fabric is charged per element. Every engine of the core, with data
// or without, also writes the transfer's completion semaphore (the fabric adds that element).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/dma/descriptor.h"
#include "simulator/isa/access_pattern.h"

namespace trnsim::simulator::core {

struct DmaEngineShare {
  uint64_t bytes = 0;     // payload this engine moves
  uint64_t elements = 0;  // contiguous runs (descriptor elements) among them
};

struct DmaSplit {
  std::vector<DmaEngineShare> engines;  // one per DMA engine of the core (sized `engines`)
  bool hbm_read = false;                // the payload is read from HBM
  int hbm_sides = 0;                    // HBM sides touched: 0, 1 or 2 (HBM to HBM)
  uint64_t bytes = 0;                   // the whole payload
};

// `partitions` SBUF partitions from `first_partition`, each carrying `bytes_per_partition` in
// runs of `element_bytes` (0: one run per partition).
DmaSplit SplitByPartitions(uint64_t first_partition, uint64_t partitions,
                           uint64_t bytes_per_partition, uint64_t element_bytes, int engines,
                           int partitions_per_engine);
// `bytes` in runs of `element_bytes` (0: one run), evenly by bytes over `engines`.
DmaSplit SplitEvenly(uint64_t bytes, uint64_t element_bytes, int engines);

// A dma_copy / sendrecv of `dst` <- `src` (resolved or static access patterns).
DmaSplit SplitCopy(const isa::AccessPattern& dst, const isa::AccessPattern& src, int engines,
                   int partitions_per_engine);
// A NEFF descriptor: its SBUF endpoint (the destination's if SBUF, else the first source's)
// names the partitions it spans in the flat, partition-major SBUF space.
DmaSplit SplitDescriptor(const dma::Descriptor& d, uint64_t sbuf_bytes_per_partition, int engines,
                         int partitions_per_engine);

}  // namespace trnsim::simulator::core
