// Writes the seed corpus of neff_reader_fuzzer: `neff_corpus_writer OUTDIR`.
// Valid NEFFs (WriteNeff's gzip'd PAX and hand-made plain ustar payloads) and malformed
// variants of them, each small enough for the fuzzer's -max_len.
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "runtime/neff/header.h"
#include "runtime/neff/neff_io.h"
#include "runtime/neff/npy.h"
#include "tests/runtime/neff/neff_test_util.h"

using namespace trnsim::neff;           // NOLINT
using namespace trnsim::neff::testing;  // NOLINT

namespace {

std::string g_dir;

void Save(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::ofstream(g_dir + "/" + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  std::printf("%-28s %6zu bytes\n", name.c_str(), bytes.size());
}

std::vector<uint8_t> Written(const Neff& n) {
  trnsim::StatusOr<std::vector<uint8_t>> bytes = WriteNeff(n);
  if (!bytes.ok()) {
    std::fprintf(stderr, "WriteNeff: %s\n", bytes.status().ToString().c_str());
    std::exit(1);
  }
  return *bytes;
}

std::vector<uint8_t> Gunzip(std::span<const uint8_t> gz) {
  z_stream z{};
  inflateInit2(&z, 15 + 16);
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  z.next_in = const_cast<uint8_t*>(gz.data());
  z.avail_in = static_cast<uInt>(gz.size());
  int r = Z_OK;
  while (r == Z_OK) {
    z.next_out = buf;
    z.avail_out = sizeof(buf);
    r = inflate(&z, Z_NO_FLUSH);
    out.insert(out.end(), buf, buf + (sizeof(buf) - z.avail_out));
  }
  inflateEnd(&z);
  return out;
}

// The same NEFF with its payload decompressed (a plain PAX tar).
std::vector<uint8_t> Plain(const std::vector<uint8_t>& neff) {
  trnsim::StatusOr<Header> h = DecodeHeader(neff);
  std::vector<uint8_t> tar = Gunzip(std::span<const uint8_t>(neff).subspan(kHeaderSize));
  return WrapPayload(tar, *h);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: neff_corpus_writer OUTDIR\n");
    return 2;
  }
  g_dir = argv[1];

  // Valid.
  std::vector<uint8_t> minimal = Written(MinimalNeff());
  Save("minimal.neff", minimal);
  Save("minimal_plain.neff", WrapPayload(Tar(ToTar(MinimalMembers()))));
  std::vector<uint8_t> rich = Written(RichNeff());
  Save("rich.neff", rich);
  Save("rich_plain.neff", Plain(rich));
  Neff sha = MinimalNeff();
  sha.header.pkg_version = 1;
  Save("sha256_plain.neff", Plain(Written(sha)));
  auto members = MinimalMembers();
  members.erase("neff.json");
  Save("no_graph_plain.neff", WrapPayload(Tar(ToTar(members))));
  members = MinimalMembers();
  members["sg00/def.json"] = R"({"sp": "SP.json", "sp_instr": "SP.bin",
      "dma_queue": {"q0": {"type": "data"}},
      "var": {"in": {"type": "input", "var_id": 0, "size": 16},
              "out": {"type": "output", "var_id": 1, "size": 16},
              "c": {"type": "file", "var_id": 2, "size": 8, "file_name": "c.npy"},
              "r": {"type": "file", "var_id": 3, "size": 3, "file_name": "r.bin"}}})";
  std::vector<uint8_t> npy = MakeNpy("<i4", {2}, std::vector<uint8_t>(8, 1));
  npy[6] = 3;  // format 3.0 has a 4-byte header length
  npy.insert(npy.begin() + 10, {0, 0});
  members["sg00/c.npy"] = std::string(npy.begin(), npy.end());
  members["sg00/r.bin"] = "raw";
  Save("constants_plain.neff", WrapPayload(Tar(ToTar(members))));

  // Malformed.
  std::vector<uint8_t> cut(minimal.begin(), minimal.begin() + minimal.size() / 2 + kHeaderSize / 2);
  Save("bad_truncated.neff", cut);
  std::vector<uint8_t> bad_hash = minimal;
  bad_hash[172] ^= 0xff;
  Save("bad_hash.neff", bad_hash);
  std::vector<uint8_t> v3 = minimal;
  v3[24] = 3;
  Save("bad_version.neff", v3);
  members = MinimalMembers();
  members["sg00/def.json"] = R"({"sp": "SP.json", "var": {"in": {"type": "input", "var_id": 0,
      "size": 16}, "in": {"type": "output", "var_id": 1, "size": 16}}})";
  Save("bad_duplicate_key_plain.neff", WrapPayload(Tar(ToTar(members))));
  members = MinimalMembers();
  members["sg00/SP.json"] = R"({"dma": [{"id": 0, "queue": "q0", "desc": {"from": "in",
      "from_off": 8, "from_steps": [1, 4], "from_sizes": [4, 4], "to": "out"}}]})";
  Save("bad_bounds_plain.neff", WrapPayload(Tar(ToTar(members))));
  Header lnc2;
  lnc2.lnc_size = 2;
  Save("bad_lnc_plain.neff", WrapPayload(Tar(ToTar(MinimalMembers())), lnc2));
  std::vector<TarMember> tar = ToTar(MinimalMembers());
  tar.push_back({"sg00/link", "", '2', "../../etc/passwd"});
  Save("bad_symlink_plain.neff", WrapPayload(Tar(tar)));
  return 0;
}
