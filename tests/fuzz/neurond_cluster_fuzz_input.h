// The byte format of neurond_cluster_fuzzer's inputs (tests/fuzz/README.md): a sequence of
// member-daemon calls to a root daemon's NeurondCluster service (proto/neurond_cluster.proto).
// ClusterFuzzReader decodes it for the fuzzer; ClusterFuzzWriter encodes it for the seed corpus
// (neurond_cluster_corpus_writer.cc). Values, Bytes and Text are neurond_fuzz_input.h's;
// reading past the end yields zeros, so every byte string is an input.
//
// An operation is [ClusterOp] then:
//   kLinkOpen       slot, LinkMessage            (the stream's first message; its reply is read)
//   kLinkSend       slot, LinkMessage            (another message on an open stream)
//   kLinkEnd        slot, u8 (bit 0: cancel the stream, else WritesDone)
//   kCollective     CollectiveRequest, Timeout   (on its own thread)
//   kHostCollective HostCollectiveRequest, Timeout
//   kJoin                                         (waits for every call started so far)
// slot: u8 % kLinkSlots. Timeout: u8 (bit 0: a timeout the service must refuse, then a Value;
// else a u8: 1 + u8 % kMaxWaitMs ms).
// LinkMessage: Token, protocol version (u8 % 3: current, 0, a Value), Instance, u8 % 5
// bindings, each Communicator, rank Value, world Value.
// CollectiveRequest: Token, Instance, Communicator, then Values: rank, world, execution
// sequence, occurrence, chip, kind, op, dtype, group size, group stride, shift, collective id;
// input Bytes; Values: output bytes, physical core, arrival ps.
// HostCollectiveRequest: Token, Instance, kind Value, Communicator, Values: rank, world,
// sequence; input Bytes.
// Token: u8 % 4 — the root's, another, none, a Text. Instance: id (u8 % 5: member A, member B,
// the root's own address, none, a Text), type (u8 % 5: trn2.3xlarge, trn2.48xlarge,
// trn2u.48xlarge, trn3.48xlarge, a Text), UltraServer (u8 % 3: none, "us-0", a Text).
// Communicator: u8 % 3 — the root's address, another daemon's (each with the input's job
// suffix, below), a Text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "proto/neurond_cluster.pb.h"
#include "tests/fuzz/neurond_fuzz_input.h"

namespace trnsim::neurond::fuzz {

enum class ClusterOp : uint8_t {
  kLinkOpen,
  kLinkSend,
  kLinkEnd,
  kCollective,
  kHostCollective,
  kJoin,
  kCount
};

inline constexpr int kLinkSlots = 3;
inline constexpr uint32_t kMaxWaitMs = 60;
// The longest host timeout ClusterService accepts (tools/neurond/cluster/cluster_service.cc).
inline constexpr uint64_t kMaxServiceTimeoutMs = 6'000'000;
inline constexpr char kRootAddress[] = "127.0.0.1:62182";
inline constexpr const char* kMemberIds[] = {"10.0.0.2:62182", "10.0.0.3:62182"};
inline constexpr const char* kInstanceTypes[] = {"trn2.3xlarge", "trn2.48xlarge", "trn2u.48xlarge",
                                                 "trn3.48xlarge"};
inline constexpr char kOtherRoot[] = "10.0.0.9:62182";
inline constexpr char kClusterToken[] = "cluster-fuzz-token";  // the root's
inline constexpr char kWrongToken[] = "not-the-token";

// Choices of the encodings above, for the writer.
enum class Token : uint8_t { kRight, kWrong, kNone, kText };
enum class MemberId : uint8_t { kA, kB, kRoot, kNone, kText };
enum class Communicator : uint8_t { kRoot, kOther, kText };

class ClusterFuzzReader : public FuzzReader {
 public:
  // `job`: appended to the communicators of this input (the fuzzer numbers its inputs), so
  // that what the root remembers of one input's ranks — a departed member fails their later
  // rendezvous for a minute — does not change what the next input does.
  ClusterFuzzReader(const uint8_t* data, size_t size, std::string job)
      : FuzzReader(data, size), job_(std::move(job)) {}

  v1::ClusterLinkMessage LinkMessage() {
    v1::ClusterLinkMessage message;
    message.set_token(TokenField());
    switch (U8() % 3) {
      case 0:
        message.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
        break;
      case 1:
        message.set_protocol_version(0);
        break;
      default:
        message.set_protocol_version(static_cast<uint32_t>(Value()));
    }
    InstanceField(message.mutable_instance());
    for (int n = U8() % 5; n > 0; --n) {
      v1::ClusterRankBinding* binding = message.add_ranks();
      binding->set_communicator(CommunicatorField());
      binding->set_rank(static_cast<uint32_t>(Value()));
      binding->set_world_size(static_cast<uint32_t>(Value()));
    }
    return message;
  }

  v1::ClusterCollectiveRequest CollectiveRequest() {
    v1::ClusterCollectiveRequest request;
    request.set_token(TokenField());
    InstanceField(request.mutable_instance());
    request.set_communicator(CommunicatorField());
    request.set_rank(static_cast<uint32_t>(Value()));
    request.set_world_size(static_cast<uint32_t>(Value()));
    request.set_execution_sequence(Value());
    request.set_occurrence(Value());
    request.set_chip(static_cast<int32_t>(Value()));
    request.set_kind(static_cast<uint32_t>(Value()));
    request.set_op(static_cast<uint32_t>(Value()));
    request.set_dtype(static_cast<uint32_t>(Value()));
    request.set_group_size(static_cast<uint32_t>(Value()));
    request.set_group_stride(static_cast<uint32_t>(Value()));
    request.set_shift(static_cast<int32_t>(Value()));
    request.set_collective_id(static_cast<uint32_t>(Value()));
    request.set_input(Bytes());
    request.set_output_bytes(Value());
    request.set_physical_core(static_cast<int32_t>(Value()));
    request.set_arrival_ps(Value());
    return request;
  }

  v1::ClusterHostCollectiveRequest HostCollectiveRequest() {
    v1::ClusterHostCollectiveRequest request;
    request.set_token(TokenField());
    InstanceField(request.mutable_instance());
    request.set_kind(static_cast<v1::HostCollectiveKind>(static_cast<int32_t>(Value())));
    request.set_communicator(CommunicatorField());
    request.set_rank(static_cast<uint32_t>(Value()));
    request.set_world_size(static_cast<uint32_t>(Value()));
    request.set_sequence(Value());
    request.set_input(Bytes());
    return request;
  }

 private:
  std::string TokenField() {
    switch (static_cast<Token>(U8() % 4)) {
      case Token::kRight:
        return kClusterToken;
      case Token::kWrong:
        return kWrongToken;
      case Token::kNone:
        return "";
      default:
        return Text();
    }
  }

  void InstanceField(v1::ClusterInstance* instance) {
    switch (static_cast<MemberId>(U8() % 5)) {
      case MemberId::kA:
        instance->set_id(kMemberIds[0]);
        break;
      case MemberId::kB:
        instance->set_id(kMemberIds[1]);
        break;
      case MemberId::kRoot:
        instance->set_id(kRootAddress);
        break;
      case MemberId::kNone:
        break;
      default:
        instance->set_id(Text());
    }
    const uint8_t type = U8() % 5;
    instance->set_instance_type(type < 4 ? kInstanceTypes[type] : Text());
    switch (U8() % 3) {
      case 0:
        break;
      case 1:
        instance->set_ultraserver("us-0");
        break;
      default:
        instance->set_ultraserver(Text());
    }
  }

  std::string CommunicatorField() {
    switch (static_cast<Communicator>(U8() % 3)) {
      case Communicator::kRoot:
        return kRootAddress + job_;
      case Communicator::kOther:
        return kOtherRoot + job_;
      default:
        return Text();
    }
  }

  const std::string job_;
};

}  // namespace trnsim::neurond::fuzz
