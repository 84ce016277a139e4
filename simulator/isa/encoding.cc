#include "simulator/isa/encoding.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "simulator/isa/byte_io.h"

namespace trnsim::isa {
namespace {

using internal::ByteReader;
using internal::ByteWriter;

constexpr size_t kCrcOffset = 20;  // u32 in the stream header

uint8_t OperandMask(const Instruction& inst) {
  uint8_t mask = 0;
  for (int i = 0; i < kMaxOperands; ++i) {
    if (inst.ap[i].present()) mask |= static_cast<uint8_t>(1u << i);
  }
  return mask;
}

size_t RecordBytes(int waits, int updates, uint8_t operand_mask) {
  return kMinRecordBytes + kSyncBytes * static_cast<size_t>(waits + updates) +
         kApBytes * static_cast<size_t>(std::popcount(operand_mask));
}

void PutAp(ByteWriter& w, const AccessPattern& ap) {
  w.Put(static_cast<uint8_t>(ap.memory));
  w.Put(static_cast<uint8_t>(ap.dtype));
  w.Put(ap.num_dims);
  w.Put(ap.offset_reg);
  w.Put(ap.start_partition);
  w.Put(ap.num_partitions);
  w.Put(ap.offset);
  w.Put(ap.var_id);
  w.Put(ap.partition_stride);
  w.Put(ap.reg_stride_bytes);
  for (uint16_t s : ap.sizes) w.Put(s);
  for (int32_t s : ap.strides) w.Put(s);
  w.Zeros(4);
}

AccessPattern GetAp(ByteReader& r, bool& reserved_ok) {
  AccessPattern ap;
  ap.memory = static_cast<Memory>(r.Get<uint8_t>());
  ap.dtype = static_cast<Dtype>(r.Get<uint8_t>());
  ap.num_dims = r.Get<uint8_t>();
  ap.offset_reg = r.Get<uint8_t>();
  ap.start_partition = r.Get<uint16_t>();
  ap.num_partitions = r.Get<uint16_t>();
  ap.offset = r.Get<int64_t>();
  ap.var_id = r.Get<uint32_t>();
  ap.partition_stride = r.Get<int32_t>();
  ap.reg_stride_bytes = r.Get<int32_t>();
  for (uint16_t& s : ap.sizes) s = r.Get<uint16_t>();
  for (int32_t& s : ap.strides) s = r.Get<int32_t>();
  reserved_ok = r.ZerosOk(4) && reserved_ok;
  return ap;
}

Status Invalid(const std::string& what) { return InvalidError("instruction stream: " + what); }

std::string Hex(uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 0xF]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

}  // namespace

uint32_t Crc32(std::span<const uint8_t> bytes, uint32_t crc) {
  // zlib's crc32 is this CRC (docs/isa.md §5.1), table-driven several bytes at a time; it
  // takes at most UINT_MAX bytes per call.
  const uint8_t* data = bytes.data();
  size_t left = bytes.size();
  uLong value = crc;
  while (left > 0) {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(left, std::numeric_limits<uInt>::max()));
    value = crc32(value, data, chunk);
    data += chunk;
    left -= chunk;
  }
  return static_cast<uint32_t>(value);
}

bool HasStreamMagic(std::span<const uint8_t> bytes) {
  return bytes.size() >= sizeof(kStreamMagic) &&
         std::memcmp(bytes.data(), kStreamMagic, sizeof(kStreamMagic)) == 0;
}

void EncodeInstruction(const Instruction& inst, std::vector<uint8_t>& out) {
  uint8_t mask = OperandMask(inst);
  int waits = std::min<int>(inst.num_waits, kMaxWaits);
  int updates = std::min<int>(inst.num_updates, kMaxUpdates);
  ByteWriter w(out);
  w.Put(static_cast<uint16_t>(inst.opcode));
  w.Put(static_cast<uint16_t>(RecordBytes(waits, updates, mask)));
  w.Put(static_cast<uint8_t>(waits));
  w.Put(static_cast<uint8_t>(updates));
  w.Put(mask);
  w.Zeros(1);
  // Scalar block (docs/isa.md §5.3).
  w.Put(static_cast<uint8_t>(inst.op0));
  w.Put(static_cast<uint8_t>(inst.op1));
  w.Put(static_cast<uint8_t>(inst.func));
  w.Put(static_cast<uint8_t>(inst.reduce_cmd));
  w.Put(static_cast<uint8_t>(inst.cmp));
  w.Put(inst.count);
  w.Put(inst.flags);
  w.Put(inst.reg0);
  w.Put(inst.reg1);
  w.Put(static_cast<uint8_t>(inst.sem_op));
  w.Zeros(1);
  w.Put(inst.index);
  w.Put(inst.target);
  for (uint32_t v : inst.imm) w.Put(v);
  w.Zeros(4);
  for (int i = 0; i < waits; ++i) {
    const SyncWait& s = inst.waits[i];
    w.Put(static_cast<uint8_t>(s.kind));
    w.Put(static_cast<uint8_t>(s.cmp));
    w.Put(s.index);
    w.Put(s.value);
  }
  for (int i = 0; i < updates; ++i) {
    const SyncUpdate& s = inst.updates[i];
    w.Put(static_cast<uint8_t>(s.op));
    w.Put(static_cast<uint8_t>(s.when));
    w.Put(s.index);
    w.Put(s.value);
  }
  for (int i = 0; i < kMaxOperands; ++i) {
    if (mask & (1u << i)) PutAp(w, inst.ap[i]);
  }
}

StatusOr<Instruction> DecodeInstruction(std::span<const uint8_t> bytes, size_t* record_bytes) {
  if (bytes.size() < kMinRecordBytes) {
    return InvalidError("record truncated: " + std::to_string(bytes.size()) +
                        " bytes left, a record "
                        "needs at least " +
                        std::to_string(kMinRecordBytes));
  }
  ByteReader r(bytes);
  Instruction inst;
  uint16_t raw_opcode = r.Get<uint16_t>();
  uint16_t size = r.Get<uint16_t>();
  uint8_t waits = r.Get<uint8_t>();
  uint8_t updates = r.Get<uint8_t>();
  uint8_t mask = r.Get<uint8_t>();
  bool reserved_ok = r.ZerosOk(1);
  if (FindOpcode(raw_opcode) == nullptr) {
    return InvalidError("unknown opcode " + Hex(raw_opcode));
  }
  inst.opcode = static_cast<Opcode>(raw_opcode);
  if (waits > kMaxWaits || updates > kMaxUpdates || (mask >> kMaxOperands) != 0) {
    return InvalidError(std::string(Mnemonic(inst.opcode)) + ": record header counts out of range");
  }
  size_t expected = RecordBytes(waits, updates, mask);
  if (size != expected) {
    return InvalidError(std::string(Mnemonic(inst.opcode)) + ": record size " +
                        std::to_string(size) + " does not match its contents (" +
                        std::to_string(expected) + " bytes)");
  }
  if (bytes.size() < size) {
    return InvalidError(std::string(Mnemonic(inst.opcode)) + ": record truncated");
  }
  inst.op0 = static_cast<AluOp>(r.Get<uint8_t>());
  inst.op1 = static_cast<AluOp>(r.Get<uint8_t>());
  inst.func = static_cast<ActFunc>(r.Get<uint8_t>());
  inst.reduce_cmd = static_cast<ReduceCmd>(r.Get<uint8_t>());
  inst.cmp = static_cast<CmpOp>(r.Get<uint8_t>());
  inst.count = r.Get<uint8_t>();
  inst.flags = r.Get<uint16_t>();
  inst.reg0 = r.Get<uint8_t>();
  inst.reg1 = r.Get<uint8_t>();
  inst.sem_op = static_cast<UpdateOp>(r.Get<uint8_t>());
  reserved_ok = r.ZerosOk(1) && reserved_ok;
  inst.index = r.Get<uint32_t>();
  inst.target = r.Get<int32_t>();
  for (uint32_t& v : inst.imm) v = r.Get<uint32_t>();
  reserved_ok = r.ZerosOk(4) && reserved_ok;
  inst.num_waits = waits;
  inst.num_updates = updates;
  for (int i = 0; i < waits; ++i) {
    SyncWait& s = inst.waits[i];
    s.kind = static_cast<WaitKind>(r.Get<uint8_t>());
    s.cmp = static_cast<CmpOp>(r.Get<uint8_t>());
    s.index = r.Get<uint16_t>();
    s.value = r.Get<uint32_t>();
  }
  for (int i = 0; i < updates; ++i) {
    SyncUpdate& s = inst.updates[i];
    s.op = static_cast<UpdateOp>(r.Get<uint8_t>());
    s.when = static_cast<UpdateWhen>(r.Get<uint8_t>());
    s.index = r.Get<uint16_t>();
    s.value = r.Get<uint32_t>();
  }
  for (int i = 0; i < kMaxOperands; ++i) {
    if (mask & (1u << i)) {
      inst.ap[i] = GetAp(r, reserved_ok);
      if (inst.ap[i].memory == Memory::kNone) {
        return InvalidError(std::string(Mnemonic(inst.opcode)) + ": operand " + std::to_string(i) +
                            " is flagged present but names no memory");
      }
    }
  }
  if (!r.ok() || r.pos() != size)
    return InvalidError("record truncated");  // unreachable: size checked above
  if (!reserved_ok) {
    return InvalidError(std::string(Mnemonic(inst.opcode)) + ": reserved bytes are not zero");
  }
  *record_bytes = size;
  return inst;
}

StatusOr<std::vector<uint8_t>> EncodeStream(Engine engine,
                                            std::span<const Instruction> instructions,
                                            const IsaLimits& limits) {
  TRNSIM_RETURN_IF_ERROR(ValidateProgram(engine, instructions, limits));
  std::vector<uint8_t> out;
  out.reserve(kStreamHeaderBytes + instructions.size() * (kMinRecordBytes + 2 * kApBytes));
  ByteWriter w(out);
  for (char c : kStreamMagic) w.Put(static_cast<uint8_t>(c));
  w.Put(kStreamFormatVersion);
  w.Put(static_cast<uint8_t>(engine));
  w.Zeros(1);
  w.Put(static_cast<uint32_t>(instructions.size()));
  w.Put(uint32_t{0});  // body bytes, patched below
  w.Put(uint32_t{0});  // CRC-32, patched below
  w.Zeros(8);
  for (const Instruction& inst : instructions) EncodeInstruction(inst, out);
  uint64_t body = out.size() - kStreamHeaderBytes;
  if (body > UINT32_MAX) return InvalidError("instruction stream: more than 4 GiB of records");
  for (int i = 0; i < 4; ++i) out[16 + i] = static_cast<uint8_t>(body >> (8 * i));
  uint32_t crc = Crc32(out);
  for (int i = 0; i < 4; ++i) out[kCrcOffset + i] = static_cast<uint8_t>(crc >> (8 * i));
  return out;
}

namespace {

// The stream's header, CRC and records, without ISA validation.
StatusOr<PackedProgram> DecodeRecords(std::span<const uint8_t> bytes, const IsaLimits& limits) {
  if (!HasStreamMagic(bytes)) {
    return Invalid(
        "no \"TRNSIMIS\" magic: not an engine stream in trnsim's encoding "
        "(docs/isa.md); AWS's private instruction encoding cannot be executed");
  }
  if (bytes.size() < kStreamHeaderBytes) {
    return Invalid("header truncated: " + std::to_string(bytes.size()) + " of " +
                   std::to_string(kStreamHeaderBytes) + " bytes");
  }
  ByteReader r(bytes.subspan(sizeof(kStreamMagic)));
  uint16_t version = r.Get<uint16_t>();
  uint8_t engine = r.Get<uint8_t>();
  bool reserved_ok = r.ZerosOk(1);
  uint32_t count = r.Get<uint32_t>();
  uint32_t body = r.Get<uint32_t>();
  uint32_t crc = r.Get<uint32_t>();
  reserved_ok = r.ZerosOk(8) && reserved_ok;
  if (version != kStreamFormatVersion) {
    return Invalid("format version " + std::to_string(version) +
                   " is not supported (this "
                   "trnsim reads version " +
                   std::to_string(kStreamFormatVersion) + ")");
  }
  if (engine >= kEngineCount) return Invalid("engine " + std::to_string(engine) + " unknown");
  if (!reserved_ok) return Invalid("reserved header bytes are not zero");
  if (bytes.size() - kStreamHeaderBytes != body) {
    return Invalid("body is " + std::to_string(bytes.size() - kStreamHeaderBytes) +
                   " bytes but the header says " + std::to_string(body) +
                   " (truncated or trailing bytes)");
  }
  std::array<uint8_t, kStreamHeaderBytes> header{};
  std::memcpy(header.data(), bytes.data(), kStreamHeaderBytes);
  std::memset(header.data() + kCrcOffset, 0, 4);
  uint32_t actual = Crc32(bytes.subspan(kStreamHeaderBytes), Crc32(header));
  if (actual != crc) return Invalid("CRC-32 mismatch: the stream is corrupted");
  if (count == 0 || count > limits.max_stream_instructions || count > body / kMinRecordBytes) {
    return Invalid("instruction count " + std::to_string(count) + " impossible for a " +
                   std::to_string(body) + "-byte body");
  }
  // Packed as decoded: a whole Program of 392-byte Instructions never exists (packed_program.h).
  PackedProgram program(static_cast<Engine>(engine));
  program.Reserve(count);  // bounded by body / kMinRecordBytes above
  std::span<const uint8_t> rest = bytes.subspan(kStreamHeaderBytes);
  for (uint32_t i = 0; i < count; ++i) {
    size_t used = 0;
    StatusOr<Instruction> inst = DecodeInstruction(rest, &used);
    if (!inst.ok()) {
      return Invalid("instruction " + std::to_string(i) + " (byte " +
                     std::to_string(bytes.size() - rest.size()) + "): " + inst.status().message());
    }
    program.Append(*inst);
    rest = rest.subspan(used);
  }
  if (!rest.empty()) {
    return Invalid(std::to_string(rest.size()) + " bytes after the last instruction");
  }
  program.Seal();
  return program;
}

}  // namespace

StatusOr<ValidatedProgram> DecodeValidatedStream(std::span<const uint8_t> bytes,
                                                 const IsaLimits& limits) {
  TRNSIM_ASSIGN_OR_RETURN(PackedProgram program, DecodeRecords(bytes, limits));
  return ValidatedProgram::Validate(std::move(program), limits);
}

StatusOr<Program> DecodeStream(std::span<const uint8_t> bytes, const IsaLimits& limits) {
  TRNSIM_ASSIGN_OR_RETURN(ValidatedProgram program, DecodeValidatedStream(bytes, limits));
  return program.Unpack();
}

}  // namespace trnsim::isa
