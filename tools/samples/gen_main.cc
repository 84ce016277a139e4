// trnsim-samples: writes the sample NEFFs (reference/samples.h) and a manifest.
//
//   trnsim-samples --out DIR [--chip trn2|trn3] [NAME...]
//
// For each sample (all, or the named ones) it writes DIR/<name>.neff; with all samples it also
// writes DIR/manifest.json: per sample its NEFF, LNC, inputs and outputs (name, dtype, shape),
// the math, the tolerance, the NEFF's size and its instruction count per engine. Prints one
// line per NEFF. Exit status 1 with one line on stderr on any error.
#include <algorithm>
#include <cstdio>
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
  for (const SampleSpec& spec : trnsim::samples::AllSamples()) {
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
        std::string key = sg.name + "/" + std::string(trnsim::neff::EngineDefKey(e.engine));
        counts[key] = n;
        total += n;
      }
    }
    std::printf("%-22s %9zu bytes %7zu instructions\n", (spec.name + ".neff").c_str(),
                bytes->size(), total);
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
  }
  if (names.empty()) {
    std::ofstream f(out_dir + "/manifest.json");
    f << manifest.dump(1) << "\n";
    if (!f) return Fail("cannot write " + out_dir + "/manifest.json");
  }
  return 0;
}
