// BuildDescriptorTable: a subgraph's NEFF DMA descriptors (the `dma` lists of its engine JSONs)
// translated at model load into the chip model's form (simulator/dma/descriptor.h), with every
// name resolved, so nothing looks anything up by string when a dma_trigger runs.
//
// Translation (docs/decisions.md, "DMA"):
//  - variables: by name to their var_id; a `state-buffer` variable to dma::kSbufVarId — it
//    names the whole SBUF, flat and partition-major, so its offsets are SBUF byte addresses;
//  - an access with no steps/sizes (the bytes [offset, variable size)) becomes one explicit
//    contiguous dimension, so every translated endpoint carries steps and sizes;
//  - queue: the descriptor's instance_name if set, else its queue. A queue-set name gives that
//    set's index in subgraph.queue_sets; an entry k of a set's queue_instances gives the set's
//    index + k. The result modulo the chip's dma_queues_per_engine is the queue;
//  - completion: semaphore and event copied (each must be below the chip's semaphores/events
//    per core); semaphore_increment = the queue set's num_queues (docs/isa.md §7.2);
//    remote_semaphores are not translated (no cross-core DMA yet);
//  - sources: `from`, or the `from_arr` entries in order; op, scale and constant copied;
//  - transpose: rows = transpose_shape[0], cols = transpose_shape[1], element size copied;
//    transpose_shape[2] and [3] must be 1 (a batch of matrices has no documented meaning);
//  - descriptors sorted by id, per engine.
// Errors are NRT_INVALID "subgraph <sg>, <Engine>.json descriptor <id>: ..." (unknown variable,
// queue or instance, a var_id that does not fit 32 bits, a duplicate id, a contiguous rest that
// is not a whole number of elements, out-of-range semaphore/event, an unsupported transpose).
//
// Pure function; thread-safe.
#pragma once

#include "common/status_or.h"
#include "runtime/neff/neff.h"
#include "simulator/dma/descriptor.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::runtime::model {

StatusOr<simulator::dma::DescriptorTable> BuildDescriptorTable(const neff::Subgraph& subgraph,
                                                               const simulator::ChipSpec& chip);

}  // namespace trnsim::runtime::model
