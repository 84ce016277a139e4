// Malformed containers through ReadNeff: truncation, sizes, hash, tar, missing members,
// malformed JSON and wrong JSON types, versions, gzip bombs. Every error is a Status whose
// message names the member file and the field or offset.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include "runtime/neff/header.h"
#include "runtime/neff/neff_io.h"
#include "tests/runtime/neff/neff_test_util.h"

namespace trnsim::neff {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the builders

using Members = std::map<std::string, std::string>;

Status ReadMembers(const Members& members) { return ReadNeff(NeffFromMembers(members)).status(); }

// MinimalMembers() with `path` replaced by `text` (or removed when text is null).
Status With(const std::string& path, const char* text) {
  Members m = MinimalMembers();
  if (text == nullptr) {
    m.erase(path);
  } else {
    m[path] = text;
  }
  return ReadMembers(m);
}

std::vector<uint8_t> MinimalBytes() {
  StatusOr<std::vector<uint8_t>> bytes = WriteNeff(MinimalNeff());
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(NeffMalformed, EveryPrefixOfAValidNeffIsRefused) {
  std::vector<uint8_t> full = MinimalBytes();
  ASSERT_TRUE(ReadNeff(full).ok());
  for (size_t n = 0; n < full.size(); ++n) {
    std::span<const uint8_t> prefix(full.data(), n);
    for (bool validate : {false, true}) {
      StatusOr<Neff> r = ReadNeff(prefix, ReadOptions{.validate_hash = validate});
      ASSERT_FALSE(r.ok()) << n;
      ASSERT_EQ(r.status().code(), StatusCode::kInvalid) << n;
      ASSERT_THAT(r.status().message(),
                  n < kHeaderSize ? HasSubstr("truncated") : HasSubstr("data_size (offset 16)"))
          << n;
    }
  }
}

TEST(NeffMalformed, EveryTruncatedPayloadWithAMatchingHeaderIsRefused) {
  std::vector<uint8_t> full = MinimalBytes();
  std::vector<uint8_t> payload(full.begin() + kHeaderSize, full.end());
  for (size_t n = 0; n < payload.size(); ++n) {
    std::vector<uint8_t> cut(payload.begin(), payload.begin() + n);
    StatusOr<Neff> r = ReadNeff(WrapPayload(cut), ReadOptions{.validate_hash = true});
    ASSERT_EQ(r.status().code(), StatusCode::kInvalid) << n;
    ASSERT_THAT(r.status().message(), HasSubstr("payload")) << n;
  }
  // The same for a plain tar, cut at every 64th byte.
  std::vector<uint8_t> tar = Tar(ToTar(MinimalMembers()));
  for (size_t n = 0; n + 1024 < tar.size(); n += 64) {
    std::vector<uint8_t> cut(tar.begin(), tar.begin() + n);
    ASSERT_FALSE(ReadNeff(WrapPayload(cut)).ok()) << n;
  }
}

TEST(NeffMalformed, DataSizeMustMatchTheBytesAfterTheHeader) {
  std::vector<uint8_t> bytes = MinimalBytes();
  bytes.push_back(0);
  EXPECT_THAT(ReadNeff(bytes).status().message(),
              AllOf(HasSubstr("data_size (offset 16)"), HasSubstr("trailing bytes")));
  bytes = MinimalBytes();
  for (int i = 0; i < 8; ++i) bytes[16 + i] = 0xff;  // 2^64 - 1
  EXPECT_THAT(ReadNeff(bytes).status().message(),
              AllOf(HasSubstr("18446744073709551615"), HasSubstr("truncated NEFF")));
}

TEST(NeffMalformed, OversizedHeaderStrings) {
  std::vector<uint8_t> bytes = MinimalBytes();
  std::fill(bytes.begin() + 220, bytes.begin() + 476, 'n');
  EXPECT_THAT(ReadNeff(bytes).status().message(), HasSubstr("name (offset 220"));
  bytes = MinimalBytes();
  std::fill(bytes.begin() + 40, bytes.begin() + 168, 'b');
  EXPECT_THAT(ReadNeff(bytes).status().message(), HasSubstr("neff_build_version (offset 40"));
}

TEST(NeffMalformed, WrongHashIsCaughtOnlyWhenValidating) {
  for (uint64_t pkg : {1u, 2u}) {
    Neff n = MinimalNeff();
    n.header.pkg_version = pkg;
    StatusOr<std::vector<uint8_t>> good = WriteNeff(n);
    ASSERT_TRUE(good.ok());
    std::vector<uint8_t> bad = *good;
    bad[172 + (pkg == 1 ? 31 : 0)] ^= 1;
    EXPECT_TRUE(ReadNeff(bad).ok());
    Status s = ReadNeff(bad, ReadOptions{.validate_hash = true}).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalid);
    EXPECT_THAT(s.message(), AllOf(HasSubstr("hash (offset 172) mismatch"),
                                   HasSubstr(pkg == 1 ? "SHA-256" : "MD5")));
    // An MD5 field's unused tail is not part of the digest.
    if (pkg == 2) {
      std::vector<uint8_t> tail = *good;
      tail[172 + 20] ^= 1;
      EXPECT_TRUE(ReadNeff(tail, ReadOptions{.validate_hash = true}).ok());
    }
    // A changed payload byte (here: in the gzip trailer's CRC) no longer matches the hash.
    std::vector<uint8_t> payload = *good;
    payload.back() ^= 1;
    EXPECT_THAT(ReadNeff(payload, ReadOptions{.validate_hash = true}).status().message(),
                HasSubstr("mismatch"));
  }
}

TEST(NeffMalformed, UnsupportedVersions) {
  std::vector<uint8_t> bytes = MinimalBytes();
  bytes[24] = 3;
  Status s = ReadNeff(bytes).status();
  EXPECT_EQ(s.code(), StatusCode::kUnsupportedNeffVersion);
  EXPECT_EQ(s.message(), "NEFF version mismatch supported: 2.x received: 3.0");
  bytes = MinimalBytes();
  bytes[0] = 7;  // pkg_version
  EXPECT_EQ(ReadNeff(bytes).status().code(), StatusCode::kUnsupportedNeffVersion);
}

TEST(NeffMalformed, BadTarPayloads) {
  EXPECT_THAT(ReadNeff(WrapPayload({})).status().message(), HasSubstr("payload is empty"));
  std::vector<uint8_t> junk(3000, 0x5a);
  EXPECT_THAT(ReadNeff(WrapPayload(junk)).status().message(), HasSubstr("not a tar archive"));
  std::vector<uint8_t> zip = {'P', 'K', 3, 4};
  zip.resize(600);
  EXPECT_EQ(ReadNeff(WrapPayload(zip)).status().code(), StatusCode::kInvalid);
  std::vector<uint8_t> gz = Gzip(Tar(ToTar(MinimalMembers())));
  gz[gz.size() / 2] ^= 0xff;  // corrupt deflate data or its CRC
  EXPECT_EQ(ReadNeff(WrapPayload(gz)).status().code(), StatusCode::kInvalid);
  std::vector<TarMember> members = ToTar(MinimalMembers());
  members.push_back({"sg00/link", "", '2', "/etc/passwd"});
  EXPECT_THAT(ReadNeff(WrapPayload(Gzip(Tar(members)))).status().message(),
              HasSubstr("symbolic link"));
  members = ToTar(MinimalMembers());
  members.push_back({"sg00/../escape", "x"});
  EXPECT_THAT(ReadNeff(WrapPayload(Gzip(Tar(members)))).status().message(), HasSubstr("'..'"));
  members = ToTar(MinimalMembers());
  members.push_back({"./sg00/SP.bin", "dup"});
  EXPECT_THAT(ReadNeff(WrapPayload(Gzip(Tar(members)))).status().message(),
              HasSubstr("duplicate tar member 'sg00/SP.bin'"));
}

TEST(NeffMalformed, MissingMembers) {
  EXPECT_THAT(With("sg00/def.json", nullptr).message(), HasSubstr("missing file sg00/def.json"));
  EXPECT_THAT(With("sg00/SP.json", nullptr).message(),
              HasSubstr("missing file sg00/SP.json (named by sg00/def.json 'sp')"));
  EXPECT_THAT(With("sg00/SP.bin", nullptr).message(),
              HasSubstr("missing file sg00/SP.bin (named by sg00/def.json 'sp_instr')"));
  Members m = MinimalMembers();
  m["sg00/def.json"] = R"({"dma_queue": {}, "var": {
      "c": {"type": "file", "var_id": 0, "size": 4, "file_name": "c.bin"}}})";
  m.erase("neff.json");
  EXPECT_THAT(ReadMembers(m).message(), AllOf(HasSubstr("sg00/def.json: var.c.file_name"),
                                              HasSubstr("missing constant file sg00/c.bin")));
  m = MinimalMembers();
  m["sg00/def.json"] = R"({"sp": "SP.json", "pe": "SP.json"})";
  EXPECT_THAT(ReadMembers(m).message(),
              HasSubstr("sg00/def.json: pe: sg00/SP.json is already 'sp'"));
  m["sg00/def.json"] = R"({"sp": "def.json"})";
  EXPECT_THAT(ReadMembers(m).message(),
              HasSubstr("sg00/def.json: sp: sg00/def.json is already def.json itself"));
  Members empty = {{"neff.json", "{}"}};
  EXPECT_THAT(ReadMembers(empty).message(), HasSubstr("missing sg00/def.json"));
}

TEST(NeffMalformed, SubgraphDirectories) {
  Members m = MinimalMembers();
  m["sg02/def.json"] = "{}";
  EXPECT_THAT(ReadMembers(m).message(), HasSubstr("sg02/ without sg01/"));
  m = MinimalMembers();
  m["sg1/def.json"] = "{}";
  EXPECT_THAT(ReadMembers(m).message(), HasSubstr("sg1/ is not a subgraph directory"));
  m = MinimalMembers();
  m["sg64/def.json"] = "{}";
  EXPECT_THAT(ReadMembers(m).message(), HasSubstr("sg64/ is not a subgraph directory"));
  m = MinimalMembers();
  m["sg01"] = "a file";
  EXPECT_THAT(ReadMembers(m).message(), HasSubstr("sg01 is a file"));
  m = MinimalMembers();
  m["sg01/other.bin"] = "no def.json here";
  EXPECT_THAT(ReadMembers(m).message(), HasSubstr("missing file sg01/def.json"));
  // Other top-level names are plain files.
  m = MinimalMembers();
  m["sgx/readme"] = "kept";
  m["kelf-0.json"] = "{}";
  StatusOr<Neff> n = ReadNeff(NeffFromMembers(m));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->top_files.size(), 2u);
  EXPECT_EQ(n->top_files.count("sgx/readme"), 1u);
}

TEST(NeffMalformed, MalformedJsonNamesTheMember) {
  EXPECT_THAT(With("sg00/def.json", "{\"var\": ").message(),
              HasSubstr("sg00/def.json: malformed JSON"));
  EXPECT_THAT(With("sg00/SP.json", "[").message(), HasSubstr("sg00/SP.json: malformed JSON"));
  EXPECT_THAT(With("neff.json", "nodes").message(), HasSubstr("neff.json: malformed JSON"));
  EXPECT_THAT(With("sg00/def.json", R"({"var": {}, "var": {}})").message(),
              HasSubstr("sg00/def.json: malformed JSON: duplicate key \"var\""));
}

TEST(NeffMalformed, WrongJsonTypesNameTheFileAndField) {
  struct Case {
    const char* member;
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"sg00/def.json", "[]", "sg00/def.json: expected an object, got array"},
      {"sg00/def.json", R"({"sp": 5})", "sg00/def.json: sp: expected a string, got integer"},
      {"sg00/def.json", R"({"var": []})", "sg00/def.json: var: expected an object"},
      {"sg00/def.json", R"({"sp": "SP.json", "dma_queue": {"q0": {"type": "data"}},
          "var": {"in": {"type": "input", "var_id": "0", "size": 16}}})",
       "sg00/def.json: var.in.var_id: expected an integer, got string"},
      {"sg00/def.json", R"({"var": {"in": {"type": "input", "var_id": 0}}})",
       "sg00/def.json: var.in: missing required field 'size'"},
      {"sg00/def.json", R"({"var": {"in": {"type": "inputs", "var_id": 0, "size": 1}}})",
       "sg00/def.json: var.in.type: unknown variable type \"inputs\""},
      {"sg00/def.json", R"({"var": {"in": {"type": "input", "var_id": 0, "size": -1}}})",
       "sg00/def.json: var.in.size: -1 is negative"},
      {"sg00/def.json", R"({"var": {"in": {"type": "input", "var_id": 0, "size": 1.5}}})",
       "sg00/def.json: var.in.size: expected an unsigned integer, got number"},
      {"sg00/def.json", R"({"dma_queue": {"q": {"num_queues": 1}}})",
       "sg00/def.json: dma_queue.q: missing required field 'type'"},
      {"sg00/def.json", R"({"dma_queue": {"q": {"type": "in", "pinned": 1}}})",
       "sg00/def.json: dma_queue.q.pinned: expected true or false"},
      {"sg00/def.json", R"({"version": [1]})",
       "sg00/def.json: version: expected a string or a number"},
      {"sg00/SP.json", R"({"dma": {}})", "sg00/SP.json: dma: expected an array"},
      {"sg00/SP.json", R"({"dma": [{"queue": "q0", "desc": {"from": "in", "to": "out"}}]})",
       "sg00/SP.json: dma[0]: missing required field 'id'"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0"}]})",
       "sg00/SP.json: dma[0]: missing required field 'desc'"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0", "desc": {"from": "in"}}]})",
       "sg00/SP.json: dma[0].desc: missing required field 'to'"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0",
          "desc": {"from": "in", "to": "out", "to_dtype": "float64"}}]})",
       "sg00/SP.json: dma[0].desc.to_dtype: unknown dtype \"float64\""},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0",
          "desc": {"op": "mul", "from": "in", "to": "out"}}]})",
       "sg00/SP.json: dma[0].desc.op: unknown op \"mul\""},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0",
          "desc": {"from_off": 4, "to": "out"}}]})",
       "sg00/SP.json: dma[0].desc: has from_* fields but no 'from' variable"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0",
          "desc": {"from": "in", "to": "out", "from_steps": [1, 1, 1, 1, 1],
                   "from_sizes": [1, 1, 1, 1, 1]}}]})",
       "sg00/SP.json: dma[0].desc.from_steps: 5 entries; at most 4"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0",
          "desc": {"from": "in", "to": "out", "transpose_shape": [1, 2, 3]}}]})",
       "sg00/SP.json: dma[0].desc.transpose_shape: 3 entries; exactly 4 are required"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0",
          "desc": {"from": "in", "to": "out", "scale": "x"}}]})",
       "sg00/SP.json: dma[0].desc.scale: expected a number"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0", "desc": {"to": "out",
          "from_arr": [{"from": "in"}, {"from": "in"}, {"from": "in"}, {"from": "in"},
                       {"from": "in"}, {"from": "in"}, {"from": "in"}, {"from": "in"},
                       {"from": "in"}, {"from": "in"}, {"from": "in"}, {"from": "in"},
                       {"from": "in"}, {"from": "in"}, {"from": "in"}, {"from": "in"},
                       {"from": "in"}]}}]})",
       "sg00/SP.json: dma[0].desc.from_arr: 17 sources; at most 16"},
      {"sg00/SP.json", R"({"dma": [{"id": 0, "queue": "q0", "desc": {"to": "out",
          "from_arr": [{"from_off": 1}]}}]})",
       "from_arr[0]: has from_* fields but no 'from' variable"},
      {"sg00/SP.json", R"({"dve_tables": [{"control_table": 1}]})",
       "sg00/SP.json: dve_tables[0].control_table: expected a string"},
      {"sg00/SP.json", R"({"activation_function_sets": "gelu"})",
       "sg00/SP.json: activation_function_sets: expected an array"},
      {"neff.json", R"({"nodes": [], "arg_nodes": [0], "heads": []})",
       "neff.json: arg_nodes[0]: node 0 does not exist"},
      {"neff.json", R"({"nodes": [], "heads": []})",
       "neff.json: missing required field 'arg_nodes'"},
      {"neff.json", R"({"nodes": [{"op": "__kelf", "name": "k"}], "arg_nodes": [], "heads": [0]})",
       "neff.json: heads[0] refers to neff.json: nodes[0] of op \"__kelf\""},
      {"neff.json", R"({"nodes": [{"op": "null", "name": "in", "attrs": {"dtype": "complex64"}}],
          "arg_nodes": [0], "heads": []})",
       "neff.json: nodes[0].attrs.dtype: unknown dtype \"complex64\""},
      {"neff.json", R"({"nodes": [{"op": "null", "name": "in", "attrs": {"shape": "[1, x]"}}],
          "arg_nodes": [0], "heads": []})",
       "neff.json: nodes[0].attrs.shape: \"[1, x]\" is not a list of dimensions"},
      {"neff.json", R"({"nodes": [{"op": "null", "name": "in", "attrs": {"shape":
          [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}}],
          "arg_nodes": [0], "heads": []})",
       "neff.json: nodes[0].attrs.shape: more than 32 dimensions"},
      {"neff.json", R"({"nodes": [{"op": "null", "attrs": {}}], "arg_nodes": [0], "heads": []})",
       "neff.json: nodes[0]: missing required field 'name'"},
  };
  for (const Case& c : cases) {
    Status s = With(c.member, c.text);
    EXPECT_EQ(s.code(), StatusCode::kInvalid) << c.text;
    EXPECT_THAT(s.message(), HasSubstr(c.expected)) << c.text;
  }
}

// A gzip'd tar whose one member claims and holds `member_bytes` zeros, built by streaming.
std::vector<uint8_t> GzipBomb(uint64_t member_bytes) {
  std::vector<uint8_t> head =
      Tar({{"sg00/bomb.bin", "", '0', "", static_cast<int64_t>(member_bytes)}});
  head.resize(512);  // the header block alone
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out;
  std::vector<uint8_t> zeros(1 << 20, 0);
  uint8_t buf[1 << 16];
  auto feed = [&](const uint8_t* p, size_t n, int flush) {
    z.next_in = const_cast<uint8_t*>(p);
    z.avail_in = static_cast<uInt>(n);
    do {
      z.next_out = buf;
      z.avail_out = sizeof(buf);
      deflate(&z, flush);
      out.insert(out.end(), buf, buf + (sizeof(buf) - z.avail_out));
    } while (z.avail_out == 0);
  };
  feed(head.data(), head.size(), Z_NO_FLUSH);
  for (uint64_t left = member_bytes; left > 0;) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, zeros.size()));
    feed(zeros.data(), n, Z_NO_FLUSH);
    left -= n;
  }
  std::vector<uint8_t> tail(1024, 0);
  feed(tail.data(), tail.size(), Z_FINISH);
  deflateEnd(&z);
  return out;
}

TEST(NeffMalformed, GzipBombIsRefusedAtItsTarHeader) {
  // 256 MiB of zeros in about 256 KiB: past both the 64 MiB floor and 256x the NEFF size.
  std::vector<uint8_t> bomb = WrapPayload(GzipBomb(uint64_t{256} << 20));
  ASSERT_LT(bomb.size(), 1u << 20);
  Status s = ReadNeff(bomb).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("tar member 'sg00/bomb.bin' (268435456 bytes)"),
                                 HasSubstr("the limit for a NEFF of this size")));
}

TEST(NeffMalformed, HighlyCompressibleConstantsUnderTheFloorAreRead) {
  Neff n = MinimalNeff();
  n.subgraphs[0].variables.push_back(Variable{});
  Variable& zeros = n.subgraphs[0].variables.back();
  zeros.name = "zeros";
  zeros.type = VariableType::kFile;
  zeros.var_id = 9;
  zeros.size = 32 << 20;  // 32 MiB compresses about 1000:1
  zeros.file_name = "zeros.bin";
  n.subgraphs[0].files["zeros.bin"] = std::vector<uint8_t>(zeros.size, 0);
  StatusOr<std::vector<uint8_t>> bytes = WriteNeff(n);
  ASSERT_TRUE(bytes.ok());
  EXPECT_LT(bytes->size(), 1u << 20);
  EXPECT_TRUE(ReadNeff(*bytes).ok());
}

}  // namespace
}  // namespace trnsim::neff
