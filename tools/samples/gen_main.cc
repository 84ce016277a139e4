// trnsim-samples: writes the sample NEFFs (reference/samples.h) and a manifest.
//
//   trnsim-samples --out DIR [--chip trn2|trn3] [NAME...]
//
// For each sample (all, or the named ones) it writes DIR/<name>.neff; with all samples it also
// writes DIR/manifest.json: per sample its NEFF, LNC, inputs and outputs (name, dtype, shape),
// the math, the tolerance, the NEFF's size and its instruction count per engine. Prints one
// line per NEFF. Exit status 1 with one line on stderr on any error.
//
// For the samples the first-app example runs (kDataSamples) it also writes their inputs and the
// reference outputs as raw little-endian tensors, the bytes nrt_tensor_write/read move:
//   DIR/<name>.inputs/<input>.bin      MakeInputs (fixed seeds)
//   DIR/<name>.expected/<output>.bin   the reference math on those inputs
//   DIR/<name>.expected/tolerance.txt  "rtol atol" (the manifest's tolerance, for C clients)
// and names the two directories in the manifest ("inputs_dir", "expected_dir"); every sample's
// manifest entry carries the tolerance an output must meet.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/neff/neff_io.h"
#include "tools/samples/sample_kernels.h"

namespace {

using trnsim::samples::SampleSpec;
using Json = nlohmann::ordered_json;

Json TensorsJson(const std::vector<trnsim::samples::TensorSpec>& tensors) {
  Json list = Json::array();
  for (const auto& t : tensors) {
    list.push_back(
        {{"name", t.name}, {"dtype", trnsim::samples::DtypeName(t.dtype)}, {"shape", t.shape}});
  }
  return list;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "trnsim-samples: %s\n", message.c_str());
  return 1;
}

// Samples whose inputs and expected outputs are written as files (small enough to compute the
// reference at build time; tools/first_app runs them).
constexpr const char* kDataSamples[] = {"attention_bf16", "mlp_gelu_bf16"};

bool WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(f);
}

// Writes DIR/<name>.inputs/*.bin and DIR/<name>.expected/*.bin; "" or the failing path.
std::string WriteData(const SampleSpec& spec, const std::string& out_dir) {
  std::vector<trnsim::samples::Array> inputs = trnsim::samples::MakeInputs(spec);
  std::vector<trnsim::samples::Array> expected = spec.reference(inputs);
  for (const char* kind : {"inputs", "expected"}) {
    const auto& arrays = std::string(kind) == "inputs" ? inputs : expected;
    const auto& specs = std::string(kind) == "inputs" ? spec.inputs : spec.outputs;
    std::string dir = out_dir + "/" + spec.name + "." + kind;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || arrays.size() != specs.size()) return dir;
    for (size_t i = 0; i < arrays.size(); ++i) {
      std::string path = dir + "/" + specs[i].name + ".bin";
      if (!WriteFile(path, trnsim::samples::ToBytes(arrays[i]))) return path;
    }
  }
  // The tolerance as plain text for C clients: "rtol atol\n" (|got - want| <= atol + rtol*|want|).
  std::string path = out_dir + "/" + spec.name + ".expected/tolerance.txt";
  char text[64];
  int n =
      std::snprintf(text, sizeof(text), "%.9g %.9g\n", spec.tolerance.rtol, spec.tolerance.atol);
  if (!WriteFile(path, std::vector<uint8_t>(text, text + n))) return path;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir, chip = "trn2";
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--out" || a == "--chip") && i + 1 < argc) {
      (a == "--out" ? out_dir : chip) = argv[++i];
    } else if (!a.empty() && a[0] != '-') {
      names.push_back(a);
    } else {
      return Fail("usage: trnsim-samples --out DIR [--chip trn2|trn3] [NAME...]");
    }
  }
  if (out_dir.empty()) return Fail("--out DIR is required");
  Json manifest = Json::array();
  std::vector<SampleSpec> specs = trnsim::samples::AllSamples();
  for (SampleSpec& spec : trnsim::samples::CollectiveSamples()) specs.push_back(std::move(spec));
  for (const SampleSpec& spec : specs) {
    if (!names.empty() && std::find(names.begin(), names.end(), spec.name) == names.end()) continue;
    trnsim::kb::KernelBuilder k({spec.name, chip, spec.lnc});
    trnsim::samples::Generator gen = trnsim::samples::GeneratorFor(spec.name);
    if (!gen) return Fail(spec.name + ": no generator");
    trnsim::Status made = gen(spec, k);
    if (!made.ok()) return Fail(spec.name + ": " + made.message());
    trnsim::StatusOr<trnsim::neff::Neff> neff = k.Build();
    if (!neff.ok()) return Fail(spec.name + ": " + neff.status().message());
    trnsim::StatusOr<std::vector<uint8_t>> bytes = trnsim::neff::WriteNeff(*neff);
    if (!bytes.ok()) return Fail(spec.name + ": " + bytes.status().message());
    std::string path = out_dir + "/" + spec.name + ".neff";
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes->data()),
            static_cast<std::streamsize>(bytes->size()));
    if (!f) return Fail("cannot write " + path);
    Json counts = Json::object();
    size_t total = 0;
    for (const auto& sg : neff->subgraphs) {
      for (const auto& e : sg.engines) {
        // Stream header: instruction count at byte 12 (docs/isa.md §5).
        uint32_t n = 0;
        for (int b = 0; b < 4 && e.instructions.size() >= 16; ++b)
          n |= uint32_t{e.instructions[12 + b]} << (8 * b);
        std::string key = sg.name + "/" + std::string(trnsim::isa::EngineName(e.engine));
        counts[key] = n;
        total += n;
      }
    }
    std::printf("%-32s %9zu bytes %7zu instructions\n", (spec.name + ".neff").c_str(),
                bytes->size(), total);
    bool with_data =
        std::find_if(std::begin(kDataSamples), std::end(kDataSamples),
                     [&](const char* n) { return spec.name == n; }) != std::end(kDataSamples);
    if (with_data) {
      std::string failed = WriteData(spec, out_dir);
      if (!failed.empty()) return Fail("cannot write " + failed);
    }
    manifest.push_back(
        {{"name", spec.name},
         {"neff", spec.name + ".neff"},
         {"lnc", spec.lnc},
         {"inputs", TensorsJson(spec.inputs)},
         {"outputs", TensorsJson(spec.outputs)},
         {"math", spec.math},
         {"tolerance", {{"rtol", spec.tolerance.rtol}, {"atol", spec.tolerance.atol}}},
         {"neff_bytes", bytes->size()},
         {"instructions", counts}});
    // Collective samples: the world they are built for (-1: any); load with
    // nrt_load_collectives.
    if (spec.ranks != 0) manifest.back()["collective_ranks"] = spec.ranks;
    if (with_data) {
      manifest.back()["inputs_dir"] = spec.name + ".inputs";
      manifest.back()["expected_dir"] = spec.name + ".expected";
    }
  }
  if (names.empty()) {
    std::ofstream f(out_dir + "/manifest.json");
    f << manifest.dump(1) << "\n";
    if (!f) return Fail("cannot write " + out_dir + "/manifest.json");
  }
  return 0;
}
