// The NEFF, as typed data: what ReadNeff() produces from a file and WriteNeff() turns back into
// one. The container follows AWS's public description (docs/neff.md; tools-driver-facts §5):
//
//   [1024-byte little-endian header][tar payload, gzip'd or plain]
//   payload:  neff.json            top-level graph: I/O tensor names, dtypes, shapes (optional)
//             sg00/def.json        subgraph root: queue sets ("dma_queue"), variables ("var"),
//                                  and per engine "<eng>": "<Engine>.json", "<eng>_instr": file
//             sg00/<Engine>.json   the engine's DMA descriptors ("dma"), and for Activation /
//                                  DVE their table lists
//             sg00/<Engine>.bin    the engine's instruction stream (trnsim's encoding:
//                                  docs/isa.md; AWS's NEFFs carry their private encoding)
//             sg00/<file>          constants (.npy or raw) named by "file" variables
//                                  (def.json "debug_prefixes": the debug_print prefix table)
//             sg01/...             the second physical core of an LNC=2 NEFF
//
// Everything is parsed once, at load, into these structures; nothing re-reads JSON later.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/isa/dtype.h"
#include "simulator/isa/engine.h"

namespace trnsim::neff {

inline constexpr size_t kHeaderSize = 1024;

// neff_header_t, field for field (offsets in docs/neff.md).
struct Header {
  uint64_t pkg_version = 2;          // 1: hash is SHA-256; 2: hash is MD5 (first 16 bytes)
  uint64_t header_size = kHeaderSize;
  uint64_t data_size = 0;            // bytes of payload after the header
  uint64_t neff_version_major = 2;
  uint64_t neff_version_minor = 0;
  std::string neff_build_version;    // <= 127 chars
  uint32_t num_tpb = 1;
  std::array<uint8_t, 32> hash{};    // of the payload bytes
  std::array<uint8_t, 16> uuid{};
  std::string name;                  // <= 255 chars
  uint32_t requested_tpb_count = 1;
  std::array<uint8_t, 64> tpb_per_node{};
  uint64_t feature_bits = 0;
  uint32_t lnc_size = 1;             // logical-core size the NEFF needs (1 or 2)

  friend bool operator==(const Header&, const Header&) = default;
};

enum class VariableType {
  kStateBuffer,  // "state-buffer": lives in SBUF
  kInput,        // "input": bound to a caller tensor at execution
  kOutput,       // "output": bound to a caller tensor at execution
  kFile,         // "file": HBM, initialised from a constant file
  kTmpBuf,       // "tmp-buf": HBM scratch private to the model
  kVirtual,      // "virtual": HBM in the core's shared scratchpad at backing_variable_off
  kPointer,      // "pointer": HBM word holding the address of referenced_var_id
  kDgeTable,     // "dge-table": HBM table of the addresses of `list`
};

struct Variable {
  std::string name;                  // the key in def.json "var"
  VariableType type = VariableType::kTmpBuf;
  int64_t var_id = 0;
  uint64_t size = 0;                 // bytes
  uint64_t alignment = 0;            // power of two, or 0 (none asked)
  std::string fabric_path = "main";
  std::string file_name;             // kFile: member of the subgraph directory
  uint64_t backing_variable_off = 0; // kVirtual
  std::optional<int64_t> referenced_var_id;  // kPointer
  std::vector<int64_t> list;         // kDgeTable: var_ids

  friend bool operator==(const Variable&, const Variable&) = default;
};

struct QueueSet {
  std::string name;                  // the key in def.json "dma_queue"
  std::string type;                  // "in", "out", "data", "embedding_update", "dynamic"
  uint32_t num_queues = 1;           // <= 16
  std::string owner;                 // engine that triggers the set
  bool pinned = false;
  std::vector<std::string> queue_instances;
  std::vector<int64_t> semaphore_set;
  std::optional<int64_t> semaphore;
  std::string fabric_path = "main";

  friend bool operator==(const QueueSet&, const QueueSet&) = default;
};

enum class DmaOp { kCopy, kCast, kAdd, kFma, kMin, kMax, kTranspose };

// One side of a descriptor: a variable and a byte access pattern (innermost first; the
// innermost size is in bytes, the others are counts; at most 4 dims).
struct DmaAccess {
  std::string var;
  uint64_t offset = 0;
  std::vector<int64_t> steps;
  std::vector<uint64_t> sizes;
  isa::Dtype dtype = isa::Dtype::kUint8;

  friend bool operator==(const DmaAccess&, const DmaAccess&) = default;
};

struct DmaDescriptor {
  int64_t id = 0;                    // matched by the engine's DMA-trigger instructions
  std::string queue;                 // a queue-set name, or empty when instance_name is used
  std::string instance_name;         // wins over `queue`
  std::string function_start;
  bool section_start_desc = false;
  std::optional<int64_t> event;      // set on completion
  std::optional<int64_t> semaphore;  // incremented on completion (by num_queues of the set)
  std::vector<int64_t> remote_semaphores;
  DmaOp op = DmaOp::kCopy;
  std::optional<DmaAccess> from;     // absent only for CCE descriptors (from_arr)
  DmaAccess to;
  std::vector<DmaAccess> from_arr;   // CCE: up to 16 sources
  uint32_t num_tiling_dimensions = 0;
  isa::Dtype scale_dtype = isa::Dtype::kFloat32;  // fma
  double scale = 1.0;
  isa::Dtype constant_dtype = isa::Dtype::kFloat32;  // min/max
  double constant = 0.0;
  std::array<uint32_t, 4> transpose_shape{};         // transpose
  uint32_t transpose_element_size = 0;

  friend bool operator==(const DmaDescriptor&, const DmaDescriptor&) = default;
};

struct DveTable {
  std::string control_table = "default_control_table.bin";
  std::string datapath_table = "default_datapath_table.bin";
  std::string opcode_table = "default_opcode_table.bin";

  friend bool operator==(const DveTable&, const DveTable&) = default;
};

struct EngineProgram {
  // The engine's def.json key is isa::EngineName ("pe"), its files' stem isa::EngineFileStem.
  isa::Engine engine = isa::Engine::kSp;
  std::string json_file;             // "PE.json"
  std::string instr_file;            // "PE.bin"; may be empty when the engine has no stream
  std::vector<DmaDescriptor> dma;
  std::vector<std::string> activation_function_sets;  // Activation.json
  std::vector<DveTable> dve_tables;                   // DVE.json
  std::vector<uint8_t> instructions; // contents of instr_file

  friend bool operator==(const EngineProgram&, const EngineProgram&) = default;
};

struct Subgraph {
  std::string name;                  // "sg00"
  std::vector<QueueSet> queue_sets;
  std::vector<Variable> variables;
  std::vector<EngineProgram> engines;
  // Other members of the subgraph directory (constants, tables), by path inside it ("w.npy",
  // "consts/b.bin"). Files are kept whole: a .npy keeps its header; ConstantData() (neff_io.h)
  // gives the bytes a "file" variable is initialised with.
  std::map<std::string, std::vector<uint8_t>> files;
  std::string def_name;              // def.json "name", when present (else empty)
  std::string def_version;           // def.json "version": a string, or a number's decimal text
  // def.json "debug_prefixes" (trnsim's): the prefix strings of the subgraph's debug_print
  // instructions (docs/isa.md §7.10), indexed by their `prefix` field. Each is at most
  // kMaxDebugPrefixBytes bytes with no NUL (it fills a 512-byte C string of the debug stream).
  std::vector<std::string> debug_prefixes;

  friend bool operator==(const Subgraph&, const Subgraph&) = default;
};

enum class TensorUsage { kInput = 0, kOutput = 1 };  // nrt_tensor_usage_t values

// A model input or output as the NEFF declares it.
struct TensorDecl {
  std::string name;
  TensorUsage usage = TensorUsage::kInput;
  uint64_t size = 0;                 // bytes
  isa::Dtype dtype = isa::Dtype::kUnknown;
  std::vector<uint32_t> shape;

  friend bool operator==(const TensorDecl&, const TensorDecl&) = default;
};

struct Neff {
  Header header;
  std::vector<Subgraph> subgraphs;   // sg00, sg01, ... in order
  // Inputs first, then outputs, each in declaration order (what nrt_get_model_tensor_info
  // reports). From neff.json when present, else from the input/output variables of sg00.
  std::vector<TensorDecl> tensors;
  // Other top-level payload members (neff.json excepted), by path.
  std::map<std::string, std::vector<uint8_t>> top_files;

  friend bool operator==(const Neff&, const Neff&) = default;
};

// Spellings used in the JSON members; the *FromName functions return nullopt for anything else.
std::string_view VariableTypeName(VariableType type);  // "state-buffer", "input", ...
std::optional<VariableType> VariableTypeFromName(std::string_view name);
std::string_view DmaOpName(DmaOp op);                  // "copy", "cast", ...
std::optional<DmaOp> DmaOpFromName(std::string_view name);

}  // namespace trnsim::neff
