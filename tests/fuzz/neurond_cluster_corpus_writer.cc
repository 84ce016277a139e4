// neurond_cluster_corpus_writer OUTDIR: writes the seed corpus of neurond_cluster_fuzzer
// (tests/fuzz/corpus/neurond_cluster/): a few meaningful sequences of member-daemon calls in the
// format of neurond_cluster_fuzz_input.h — links accepted and refused, forwarded ranks that
// meet, that wait for a rank whose member's link then ends, and host collectives.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "tests/fuzz/neurond_cluster_fuzz_input.h"

namespace fuzz = trnsim::neurond::fuzz;
using fuzz::ClusterOp;
using fuzz::Communicator;
using fuzz::FuzzWriter;
using fuzz::MemberId;
using fuzz::Token;

namespace {

constexpr uint8_t kTrn2_3xlarge = 0, kTrn2u = 2, kTypeText = 4;

FuzzWriter& Op(FuzzWriter& w, ClusterOp op) { return w.U8(static_cast<uint8_t>(op)); }

// `type_text` names the type when `type` is kTypeText.
FuzzWriter& Instance(FuzzWriter& w, MemberId id, uint8_t type = kTrn2_3xlarge,
                     uint8_t ultraserver = 0, const std::string& type_text = "") {
  w.U8(static_cast<uint8_t>(id)).U8(type);
  if (type == kTypeText) w.Bytes(type_text);
  return w.U8(ultraserver);
}

struct Binding {
  Communicator communicator;
  uint32_t rank;
  uint32_t world;
};

// kLinkOpen / kLinkSend of member `id` with `bindings`.
FuzzWriter& Link(FuzzWriter& w, ClusterOp op, uint8_t slot, MemberId id,
                 std::initializer_list<Binding> bindings, Token token = Token::kRight,
                 uint8_t version = 0, const std::string& type_text = "") {
  Op(w, op).U8(slot).U8(static_cast<uint8_t>(token)).U8(version);
  Instance(w, id, type_text.empty() ? kTrn2_3xlarge : kTypeText, 0, type_text)
      .U8(static_cast<uint8_t>(bindings.size()));
  for (const Binding& b : bindings) {
    w.U8(static_cast<uint8_t>(b.communicator)).Value(b.rank).Value(b.world);
  }
  return w;
}

FuzzWriter& LinkEnd(FuzzWriter& w, uint8_t slot, bool cancel) {
  return Op(w, ClusterOp::kLinkEnd).U8(slot).U8(cancel ? 1 : 0);
}

FuzzWriter& Timeout(FuzzWriter& w, uint8_t ms) { return w.U8(0).U8(ms - 1); }

struct Collective {
  MemberId id;
  uint32_t rank;
  uint32_t world = 2;
  uint64_t kind = 0;    // all_reduce
  uint64_t op = 1;      // add
  uint64_t dtype = 10;  // fp32
  std::string input;
  uint64_t output_bytes;
  uint64_t core = 0;
  uint64_t occurrence = 0;
  uint8_t timeout_ms = 50;
  uint8_t type = kTrn2_3xlarge;
  uint8_t ultraserver = 0;
};

FuzzWriter& Call(FuzzWriter& w, const Collective& c) {
  Op(w, ClusterOp::kCollective).U8(static_cast<uint8_t>(Token::kRight));
  Instance(w, c.id, c.type, c.ultraserver).U8(static_cast<uint8_t>(Communicator::kRoot));
  w.Value(c.rank).Value(c.world).Value(0).Value(c.occurrence);  // rank, world, sequence, occurrence
  w.Value(0).Value(c.kind).Value(c.op).Value(c.dtype);          // chip, kind, op, dtype
  w.Value(0).Value(1).Value(1).Value(7);  // group size, stride, shift, collective id
  w.Bytes(c.input).Value(c.output_bytes).Value(c.core).Value(100 * (c.rank + 1));
  return Timeout(w, c.timeout_ms);
}

FuzzWriter& Host(FuzzWriter& w, MemberId id, uint64_t kind, uint32_t rank, uint32_t world,
                 const std::string& input) {
  Op(w, ClusterOp::kHostCollective).U8(static_cast<uint8_t>(Token::kRight));
  Instance(w, id).Value(kind).U8(static_cast<uint8_t>(Communicator::kRoot));
  w.Value(rank).Value(world).Value(0).Bytes(input);
  return Timeout(w, 50);
}

std::string Floats(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), sizeof(v));
  return out;
}

void Save(const std::filesystem::path& dir, const char* name, const FuzzWriter& w) {
  std::ofstream(dir / name, std::ios::binary) << w.bytes();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const std::string two = Floats({1.5f, -2.0f});
  {
    // Two members link, bind ranks 0 and 1, and their ranks all-reduce twice.
    FuzzWriter w;
    Link(w, ClusterOp::kLinkOpen, 0, MemberId::kA, {{Communicator::kRoot, 0, 2}});
    Link(w, ClusterOp::kLinkOpen, 1, MemberId::kB, {{Communicator::kRoot, 1, 2}});
    Call(w, {.id = MemberId::kA, .rank = 0, .input = two, .output_bytes = 8});
    Call(w, {.id = MemberId::kB, .rank = 1, .input = two, .output_bytes = 8});
    Op(w, ClusterOp::kJoin);
    Call(w, {.id = MemberId::kA, .rank = 0, .input = two, .output_bytes = 8, .occurrence = 1});
    Call(w, {.id = MemberId::kB, .rank = 1, .input = two, .output_bytes = 8, .occurrence = 1});
    Save(dir, "allreduce_two_members", w);
  }
  {
    // An all-gather of 3 ranks on two instances, one rank on another core.
    FuzzWriter w;
    const std::string one = Floats({4.0f});
    for (uint32_t rank = 0; rank < 3; ++rank) {
      Call(w, {.id = rank == 2 ? MemberId::kB : MemberId::kA,
               .rank = rank,
               .world = 3,
               .kind = 1,
               .op = 0,
               .input = one,
               .output_bytes = 12,
               .core = rank == 1 ? 2u : 0u});
    }
    Save(dir, "allgather_three_ranks", w);
  }
  {
    // Rank 0 waits for rank 1, whose member's link then ends: rank 0 fails at once.
    FuzzWriter w;
    Link(w, ClusterOp::kLinkOpen, 0, MemberId::kB, {{Communicator::kRoot, 1, 2}});
    Call(w, {.id = MemberId::kA, .rank = 0, .input = two, .output_bytes = 8, .timeout_ms = 60});
    LinkEnd(w, 0, false);
    Op(w, ClusterOp::kJoin);
    Link(w, ClusterOp::kLinkOpen, 2, MemberId::kB, {});
    Link(w, ClusterOp::kLinkSend, 2, MemberId::kB, {{Communicator::kRoot, 1, 2}});
    LinkEnd(w, 2, true);
    Save(dir, "member_departs", w);
  }
  {
    // Links refused: wrong token, old protocol, unknown type, the root's own id, twice linked.
    FuzzWriter w;
    Link(w, ClusterOp::kLinkOpen, 0, MemberId::kA, {}, Token::kWrong);
    Link(w, ClusterOp::kLinkOpen, 0, MemberId::kA, {}, Token::kRight, 1);
    Link(w, ClusterOp::kLinkOpen, 1, MemberId::kA, {}, Token::kRight, 0, "trn9.huge");
    Link(w, ClusterOp::kLinkOpen, 1, MemberId::kRoot, {});
    Link(w, ClusterOp::kLinkOpen, 2, MemberId::kA, {});
    Link(w, ClusterOp::kLinkOpen, 0, MemberId::kA, {});
    Save(dir, "links_refused", w);
  }
  {
    // Collectives refused: kind, dtype, core and sizes out of range; a timeout too long.
    FuzzWriter w;
    Call(w, {.id = MemberId::kA, .rank = 0, .kind = 9, .input = two, .output_bytes = 8});
    Call(w, {.id = MemberId::kA, .rank = 0, .dtype = 99, .input = two, .output_bytes = 8});
    Call(w, {.id = MemberId::kA, .rank = 0, .input = two, .output_bytes = 8, .core = 64});
    Call(w, {.id = MemberId::kA, .rank = 0, .input = two, .output_bytes = uint64_t{1} << 31});
    Call(w, {.id = MemberId::kA, .rank = 0, .input = "abc", .output_bytes = 3});
    Op(w, ClusterOp::kCollective).U8(static_cast<uint8_t>(Token::kRight));
    Instance(w, MemberId::kA).U8(static_cast<uint8_t>(Communicator::kRoot));
    for (int i = 0; i < 12; ++i) w.Value(0);
    w.Bytes(two).Value(8).Value(0).Value(0);
    w.U8(1).Value(0);  // a timeout past the service's bound
    Save(dir, "collectives_refused", w);
  }
  {
    // A barrier and an all-gather of two members' ranks; an UltraServer pair all-reducing.
    FuzzWriter w;
    Host(w, MemberId::kA, 0, 0, 2, "");
    Host(w, MemberId::kB, 0, 1, 2, "");
    Op(w, ClusterOp::kJoin);
    Host(w, MemberId::kA, 1, 0, 2, "ab");
    Host(w, MemberId::kB, 1, 1, 2, "cd");
    Op(w, ClusterOp::kJoin);
    Call(w, {.id = MemberId::kA,
             .rank = 0,
             .input = two,
             .output_bytes = 8,
             .occurrence = 5,
             .type = kTrn2u,
             .ultraserver = 1});
    Call(w, {.id = MemberId::kB,
             .rank = 1,
             .input = two,
             .output_bytes = 8,
             .occurrence = 5,
             .type = kTrn2u,
             .ultraserver = 1});
    Save(dir, "host_collectives_and_ultraserver", w);
  }
  return 0;
}
