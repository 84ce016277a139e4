// The corpus replayer: a main() for a libFuzzer target built without libFuzzer (any compiler),
// which runs LLVMFuzzerTestOneInput once on each file it is given — every regular file of each
// directory argument (sorted by name, not recursing), or a file argument itself. CTest runs the
// four targets this way on their committed seed corpora in `make test` and, under ASan and
// UBSan, in `make sanitize` (tests/fuzz/CMakeLists.txt), so a change that breaks a target's
// oracle or crashes on a seed fails there without a clang build. It does not mutate anything:
// fuzzing proper is `make fuzz`.
//
// Exit status: 0 when every input ran (a target's oracle aborts on a broken invariant, and the
// sanitizers abort on their findings); 2 when an argument cannot be read or holds no input.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The inputs one argument names, in a stable order; false (and a message) when it names none.
bool Inputs(const std::filesystem::path& argument, std::vector<std::filesystem::path>* out) {
  std::error_code error;
  if (std::filesystem::is_regular_file(argument, error)) {
    out->push_back(argument);
    return true;
  }
  if (!std::filesystem::is_directory(argument, error)) {
    std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", argument.c_str());
    return false;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(argument, error)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  if (error || files.empty()) {
    std::fprintf(stderr, "replay: no input files in %s%s%s\n", argument.c_str(), error ? ": " : "",
                 error ? error.message().c_str() : "");
    return false;
  }
  std::sort(files.begin(), files.end());
  out->insert(out->end(), files.begin(), files.end());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!Inputs(argv[i], &inputs)) return 2;
  }
  for (const std::filesystem::path& path : inputs) {
    std::ifstream file(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                               std::istreambuf_iterator<char>());
    if (!file.good() && !file.eof()) {
      std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
      return 2;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.filename().c_str(), bytes.size());
    static const uint8_t kNoByte = 0;  // libFuzzer never passes a null pointer, even for no bytes
    LLVMFuzzerTestOneInput(bytes.empty() ? &kNoByte : bytes.data(), bytes.size());
  }
  std::printf("replay: %zu inputs ran\n", inputs.size());
  return 0;
}
