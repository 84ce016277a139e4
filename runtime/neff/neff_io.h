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
//
// Both run the same semantic checks (validate.h), so WriteNeff refuses (NRT_INVALID) any Neff
// that ReadNeff would refuse. Limits, schemas and the exact rules: docs/neff.md.
// Thread safety: both are reentrant; no state is shared between calls.
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

// The bytes the loader copies into the "file" variable `var` of `sg`: for a file named *.npy,
// the array data after the .npy header (Subgraph.files keeps the whole .npy file); for any
// other file, all of it. The span points into sg.files and lives as long as it does.
// NRT_INVALID if `var` is not a "file" variable, its file is missing, the .npy is malformed, or
// the data is not exactly var.size bytes. (ReadNeff has already checked every constant.)
StatusOr<std::span<const uint8_t>> ConstantData(const Subgraph& sg, const Variable& var);

}  // namespace trnsim::neff
