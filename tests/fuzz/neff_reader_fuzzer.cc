// libFuzzer target for neff::ReadNeff (make fuzz; tests/fuzz/README.md).
//
// Every input is read with hash validation off and on; neither may crash, hang, leak or
// allocate without bound. An input that reads successfully must also survive the writer:
// ReadNeff(WriteNeff(n)) == n (with data_size and hash as the writer fills them in).
#include <cstdio>
#include <cstdlib>
#include <span>

#include "runtime/neff/neff_io.h"

using trnsim::neff::Neff;
using trnsim::neff::ReadNeff;
using trnsim::neff::ReadOptions;
using trnsim::neff::WriteNeff;

namespace {

[[noreturn]] void Fail(const char* what, const trnsim::Status& status) {
  std::fprintf(stderr, "neff_reader_fuzzer: %s: %s\n", what, status.ToString().c_str());
  std::abort();
}

void CheckRoundTrip(const Neff& neff) {
  trnsim::StatusOr<std::vector<uint8_t>> bytes = WriteNeff(neff);
  if (!bytes.ok()) Fail("WriteNeff refused a NEFF ReadNeff accepted", bytes.status());
  trnsim::StatusOr<Neff> back = ReadNeff(*bytes, ReadOptions{.validate_hash = true});
  if (!back.ok()) Fail("ReadNeff refused what WriteNeff wrote", back.status());
  Neff expected = neff;
  expected.header.data_size = back->header.data_size;
  expected.header.hash = back->header.hash;
  if (!(*back == expected)) Fail("round trip changed the NEFF", trnsim::Status::Ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  trnsim::StatusOr<Neff> plain = ReadNeff(bytes, ReadOptions{.validate_hash = false});
  trnsim::StatusOr<Neff> hashed = ReadNeff(bytes, ReadOptions{.validate_hash = true});
  if (hashed.ok() && !plain.ok()) Fail("hash validation made a NEFF valid", plain.status());
  if (plain.ok()) CheckRoundTrip(*plain);
  return 0;
}
