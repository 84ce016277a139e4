// Reading and writing NEFF files (the container of neff.h).
//
// ReadNeff validates everything it parses — header fields, sizes and offsets, the tar payload
// (gzip'd or plain), every JSON member and field type, cross-references (descriptor variables
// and queues, pointer/dge-table var_ids, constant files and their sizes) — and returns
// NRT_INVALID naming the problem, or NRT_UNSUPPORTED_NEFF_VERSION for a NEFF version it cannot
// read. It never crashes, hangs or leaks on any input, and bounds every allocation by the input
// size. With `validate_hash`, the payload hash must match (NEURON_RT_VALIDATE_HASH).
//
// WriteNeff fills in header.data_size and header.hash (MD5 for pkg_version 2, SHA-256 for 1)
// and writes a gzip'd PAX tar payload with neff.json, every subgraph's def.json, engine JSONs,
// instruction streams and files. ReadNeff(WriteNeff(n)) == n for every valid n.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status_or.h"
#include "runtime/neff/neff.h"

namespace trnsim::neff {

struct ReadOptions {
  bool validate_hash = false;
};

StatusOr<Neff> ReadNeff(std::span<const uint8_t> bytes, const ReadOptions& options = {});
StatusOr<std::vector<uint8_t>> WriteNeff(const Neff& neff);

}  // namespace trnsim::neff
