// KernelBuilder: kb::KernelBuilder (tools/kernel_builder/kernel_builder.h) for Python, with
// instructions given in the ISA's text form (docs/isa.md §10) and addressed by
// (core, engine name, index in that engine's stream).
//
// Every call checks its arguments and reports its own failure at once (TrnsimError): a bad
// instruction never reaches the builder's deferred diagnostics, so build() fails only for what
// needs the whole kernel (semaphore plumbing, labels, the NEFF's own rules).
//
// finish() does the build's kernel part (semaphores, encoding) and returns where every emitted
// instruction ended up (kb::KernelBuilder::StreamPositions), so that a debug-info member added
// afterwards can name final positions; build() then only writes the archive. After finish()
// the kernel is fixed: calls that change it raise TrnsimError.
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "python/binding/binding.h"
#include "python/binding/errors.h"
#include "runtime/neff/neff_io.h"
#include "simulator/isa/text.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::python {
namespace py = pybind11;

namespace {

std::vector<uint8_t> BufferBytes(const py::buffer& data, const char* what) {
  py::buffer_info info = data.request();
  if (!PyBuffer_IsContiguous(reinterpret_cast<Py_buffer*>(info.view()), 'C')) {
    RaiseInvalid(std::string(what) + " is not a C-contiguous buffer");
  }
  const auto* p = static_cast<const uint8_t*>(info.ptr);
  return std::vector<uint8_t>(p, p + info.size * info.itemsize);
}

isa::Dtype DtypeOf(const std::string& name) {
  std::optional<isa::Dtype> dtype = isa::DtypeFromShortName(name);
  if (!dtype) {
    RaiseInvalid("unknown dtype '" + name +
                 "' (ISA short names: fp32, bf16, fp16, fp8e4, int32, ...)");
  }
  return *dtype;
}

class Builder {
 public:
  Builder(const std::string& name, const std::string& chip, int lnc) {
    if (kb::ChipSpecByName(chip) == nullptr) {
      RaiseInvalid("unknown chip '" + chip + "' (expected trn2 or trn3)");
    }
    if (lnc != 1 && lnc != 2) RaiseInvalid("lnc " + std::to_string(lnc) + " (expected 1 or 2)");
    if (name.empty()) RaiseInvalid("a kernel needs a name");
    kb_ = std::make_unique<kb::KernelBuilder>(
        kb::KernelOptions{.name = name, .chip = chip, .lnc = lnc});
  }

  int64_t AddInput(std::string name, const std::string& dtype, std::vector<uint32_t> shape) {
    CheckOpen("add_input");
    return Value(kb_->AddInput(std::move(name), DtypeOf(dtype), std::move(shape))).var_id;
  }
  int64_t AddOutput(std::string name, const std::string& dtype, std::vector<uint32_t> shape) {
    CheckOpen("add_output");
    return Value(kb_->AddOutput(std::move(name), DtypeOf(dtype), std::move(shape))).var_id;
  }
  int64_t AddScratch(std::string name, uint64_t nbytes) {
    CheckOpen("add_scratch");
    return Value(kb_->AddScratch(std::move(name), nbytes)).var_id;
  }
  int64_t AddShared(std::string name, uint64_t nbytes) {
    CheckOpen("add_shared");
    return Value(kb_->AddShared(std::move(name), nbytes)).var_id;
  }
  int64_t AddConstant(std::string name, const std::string& dtype, std::vector<uint32_t> shape,
                      const py::buffer& data) {
    CheckOpen("add_constant");
    std::vector<uint8_t> bytes = BufferBytes(data, "constant data");
    return Value(kb_->AddConstant(std::move(name), DtypeOf(dtype), std::move(shape),
                                  std::move(bytes)))
        .var_id;
  }

  int Emit(int core, const std::string& engine, const std::string& text) {
    kb::Stream& s = StreamOf(core, engine);
    return Append(s, text, -1);
  }

  std::vector<int> EmitMany(int core, const std::string& engine,
                            const std::vector<std::string>& texts) {
    kb::Stream& s = StreamOf(core, engine);
    std::vector<int> indices;
    indices.reserve(texts.size());
    for (size_t k = 0; k < texts.size(); ++k) {
      indices.push_back(Append(s, texts[k], static_cast<int>(k)));
    }
    return indices;
  }

  void Depend(const py::tuple& consumer, const py::tuple& producer) {
    CheckOpen("depend");
    kb::InstRef c = RefOf(consumer, "consumer");
    kb::InstRef p = RefOf(producer, "producer");
    if (c.core != p.core) {
      RaiseInvalid("depend: producer on core " + std::to_string(p.core) + ", consumer on core " +
                   std::to_string(c.core) +
                   " (semaphores are per core; use sendrecv/core_barrier)");
    }
    if (c.engine == p.engine && c.index <= p.index) {
      RaiseInvalid("depend: the consumer " + Name(c) + " does not come after the producer " +
                   Name(p) + " in the same stream (deadlock)");
    }
    kb_->Depend(c, p);
  }

  int AllocSemaphore(int core) {
    CheckOpen("alloc_semaphore");
    return Value(kb_->core(CheckCore(core)).AllocSemaphore());
  }

  int NewLabel(int core, const std::string& engine, const std::string& name) {
    return StreamOf(core, engine).NewLabel(name).id;
  }
  void BindLabel(int core, const std::string& engine, int label) {
    Check(StreamOf(core, engine).Bind(kb::Label{label}));
  }
  int EmitBranch(int core, const std::string& engine, const std::string& text, int label) {
    kb::Stream& s = StreamOf(core, engine);
    isa::Instruction inst = Parse(s, text, -1);
    if (inst.opcode != isa::Opcode::kBranch) {
      RaiseInvalid(Where(s, -1) + "emit_branch needs a branch instruction, not '" + text + "'");
    }
    return Value(s.AddBranch(inst, kb::Label{label})).index;
  }

  int DebugPrint(int core, const std::string& engine, const std::string& prefix,
                 const std::string& src) {
    kb::Stream& s = StreamOf(core, engine);
    StatusOr<isa::AccessPattern> ap = isa::ParseAccessPattern(src);
    if (!ap.ok()) {
      RaiseInvalid(Where(s, -1) + "debug_print source '" + src + "': " + ap.status().message());
    }
    return Value(s.AddDebugPrint(prefix, *ap)).index;
  }

  int InstructionCount(int core, const std::string& engine) {
    CheckCore(core);
    return kb_->core(core).stream(EngineOf(engine)).size();
  }

  void AddMember(const std::string& name, const py::buffer& data) {
    if (members_.count(name) != 0) RaiseInvalid("NEFF member '" + name + "' added twice");
    // The path rules (relative, canonical, not neff.json, not inside sgNN/) are WriteNeff's.
    members_[name] = BufferBytes(data, "member data");
  }

  // {(core, engine): [final index of the instruction emitted at each index]}, the entry after
  // the last emitted one being the notify_end the build appends.
  py::dict Finish() {
    if (!built_) {
      kb::KernelBuilder::StreamPositions positions;
      built_ = Value(kb_->Build({}, &positions));
      positions_ = std::move(positions);
    }
    py::dict out;
    for (size_t core = 0; core < positions_.size(); ++core) {
      for (int e = 0; e < isa::kEngineCount; ++e) {
        out[py::make_tuple(core, std::string(isa::EngineName(static_cast<isa::Engine>(e))))] =
            py::cast(positions_[core][static_cast<size_t>(e)]);
      }
    }
    return out;
  }

  py::bytes Build() {
    if (!built_) Finish();
    neff::Neff n = *built_;
    for (const auto& [name, data] : members_) n.top_files[name] = data;
    std::vector<uint8_t> bytes = Value(neff::WriteNeff(n));
    return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

  const std::string& name() const { return kb_->options().name; }
  const std::string& chip() const { return kb_->options().chip; }
  int lnc() const { return kb_->lnc(); }

 private:
  int CheckCore(int64_t core) const {
    if (core < 0 || core >= kb_->lnc()) {
      RaiseInvalid("core " + std::to_string(core) + " of a kernel with lnc " +
                   std::to_string(kb_->lnc()));
    }
    return static_cast<int>(core);
  }

  static isa::Engine EngineOf(const std::string& name) {
    std::optional<isa::Engine> e = isa::EngineFromName(name);
    if (!e) RaiseInvalid("unknown engine '" + name + "' (expected pe, act, dve, pool or sp)");
    return *e;
  }

  // Raises once finish() has fixed the kernel.
  void CheckOpen(const char* what) const {
    if (built_) RaiseInvalid(std::string(what) + ": the kernel is finished (finish() or build())");
  }

  // A stream to change (raises after finish()).
  kb::Stream& StreamOf(int core, const std::string& engine) {
    CheckOpen("emitting");
    CheckCore(core);
    return kb_->core(core).stream(EngineOf(engine));
  }

  kb::InstRef RefOf(const py::tuple& t, const char* what) {
    if (t.size() != 3 || !py::isinstance<py::int_>(t[0]) || !py::isinstance<py::str>(t[1]) ||
        !py::isinstance<py::int_>(t[2])) {
      throw py::type_error(std::string(what) +
                           " must be a (core: int, engine: str, index: int) tuple");
    }
    const int core = CheckCore(ClampedInt(t[0]));
    kb::Stream& s = StreamOf(core, t[1].cast<std::string>());
    const int64_t index = ClampedInt(t[2]);
    if (index < 0 || index >= s.size()) {
      RaiseInvalid(std::string("depend: ") + what + " " + Name(core, s.engine(), -1) + "[" +
                   std::to_string(index) + "]: no such instruction (" + std::to_string(s.size()) +
                   " in the stream)");
    }
    return kb::InstRef{core, s.engine(), static_cast<int>(index)};
  }

  // A Python int as int64_t, saturated (every caller range-checks the result).
  static int64_t ClampedInt(const py::handle& value) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) return overflow > 0 ? INT64_MAX : INT64_MIN;
    return v;
  }

  // "sg00 dve[3]" (the builder's spelling of a stream position); no index when position < 0.
  static std::string Name(int core, isa::Engine engine, int position) {
    std::string w = (core < 10 ? "sg0" : "sg") + std::to_string(core) + " " +
                    std::string(isa::EngineName(engine));
    if (position >= 0) w += "[" + std::to_string(position) + "]";
    return w;
  }
  static std::string Name(const kb::InstRef& r) { return Name(r.core, r.engine, r.index); }
  static std::string Where(const kb::Stream& s, int position) {
    return Name(s.core(), s.engine(), position) + ": ";
  }

  // Parses one line; `item` >= 0 names its position in an emit_many list.
  static isa::Instruction Parse(const kb::Stream& s, const std::string& text, int item) {
    StatusOr<isa::Instruction> inst = isa::ParseInstruction(text);
    if (!inst.ok()) {
      std::string where = Where(s, s.size());
      if (item >= 0) where += "texts[" + std::to_string(item) + "]: ";
      RaiseInvalid(where + "cannot parse '" + text + "': " + inst.status().message());
    }
    return *inst;
  }

  int Append(kb::Stream& s, const std::string& text, int item) {
    isa::Instruction inst = Parse(s, text, item);
    if (inst.opcode == isa::Opcode::kBranch) {
      RaiseInvalid(Where(s, s.size()) +
                   "a branch goes through emit_branch (its target is a label)");
    }
    StatusOr<kb::InstRef> ref = s.Add(inst);
    if (!ref.ok()) {
      std::string message = ref.status().message();
      if (item >= 0) message = "texts[" + std::to_string(item) + "]: " + message;
      Raise(Status(ref.status().code(), message + " ('" + text + "')"));
    }
    return ref->index;
  }

  std::unique_ptr<kb::KernelBuilder> kb_;
  std::map<std::string, std::vector<uint8_t>> members_;
  std::optional<neff::Neff> built_;  // set by finish()
  kb::KernelBuilder::StreamPositions positions_;
};

}  // namespace

void RegisterBuilder(py::module_& m) {
  using py::arg;
  py::class_<Builder>(m, "KernelBuilder",
                      "Builds one NEFF with trnsim's kernel builder (docs/toolchain.md). "
                      "Instructions are text lines of docs/isa.md §10.")
      .def(py::init<const std::string&, const std::string&, int>(), arg("name"),
           arg("chip") = "trn2", arg("lnc") = 1)
      .def_property_readonly("name", &Builder::name)
      .def_property_readonly("chip", &Builder::chip)
      .def_property_readonly("lnc", &Builder::lnc)
      .def("add_input", &Builder::AddInput, arg("name"), arg("dtype"), arg("shape"),
           "Declares an input tensor in HBM; returns its var_id.")
      .def("add_output", &Builder::AddOutput, arg("name"), arg("dtype"), arg("shape"),
           "Declares an output tensor in HBM; returns its var_id.")
      .def("add_scratch", &Builder::AddScratch, arg("name"), arg("nbytes"),
           "Declares HBM scratch private to the model; returns its var_id.")
      .def("add_shared", &Builder::AddShared, arg("name"), arg("nbytes"),
           "Declares HBM scratch shared by the model's subgraphs (a virtual variable in the "
           "logical core's scratchpad); returns its var_id.")
      .def("add_constant", &Builder::AddConstant, arg("name"), arg("dtype"), arg("shape"),
           arg("data"), "Declares an HBM constant initialised from data; returns its var_id.")
      .def("emit", &Builder::Emit, arg("core"), arg("engine"), arg("text"),
           "Appends one instruction (text form) to a stream; returns its index there.")
      .def("emit_many", &Builder::EmitMany, arg("core"), arg("engine"), arg("texts"),
           "emit() for each line; stops at the first error (the lines before it stay).")
      .def("depend", &Builder::Depend, arg("consumer"), arg("producer"),
           "consumer (core, engine, index) starts after producer has completed.")
      .def("alloc_semaphore", &Builder::AllocSemaphore, arg("core"),
           "A semaphore for hand-made plumbing, never used by depend().")
      .def("new_label", &Builder::NewLabel, arg("core"), arg("engine"), arg("name") = "")
      .def("bind_label", &Builder::BindLabel, arg("core"), arg("engine"), arg("label"),
           "Binds the label to the next instruction appended to the stream.")
      .def("emit_branch", &Builder::EmitBranch, arg("core"), arg("engine"), arg("text"),
           arg("label"), "Appends a `branch ... -> T` line whose target becomes the label.")
      .def("debug_print", &Builder::DebugPrint, arg("core"), arg("engine"), arg("prefix"),
           arg("src"), "Appends a debug_print of src (an access pattern in text form).")
      .def("instruction_count", &Builder::InstructionCount, arg("core"), arg("engine"))
      .def("add_member", &Builder::AddMember, arg("name"), arg("data"),
           "An extra top-level file of the NEFF archive (e.g. kernel_debug_info.json).")
      .def("finish", &Builder::Finish,
           "Resolves dependencies and encodes the streams (the kernel part of build()); returns "
           "{(core, engine): [final index of each emitted instruction]} — the builder inserts "
           "sem_waits before consumers with more than 4 waits and appends notify_end. After it "
           "the kernel cannot change; add_member and build() still work.")
      .def("build", &Builder::Build,
           "The NEFF's bytes (finishing first if needed); raises TrnsimError with the first "
           "error.");
}

}  // namespace trnsim::python
