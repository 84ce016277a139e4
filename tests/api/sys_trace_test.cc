// The system trace through the C API (nrt_sys_trace_start / _stop / _fetch_events), in-process
// on an emulated trn2.3xlarge at LNC=1: the events model loads and executions leave (host and
// simulated device times), consumption by fetch, the config and fetch filters, the ring bound,
// concurrent executions and fetches, and bad arguments. The JSON is parsed with nlohmann.
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "nrt/nrt.h"
#include "nrt/nrt_experimental.h"
#include "nrt/nrt_sys_trace.h"
#include "trnsim/trnsim.h"

namespace {

using Json = nlohmann::json;

constexpr char kNeff[] = TRNSIM_SAMPLES_DIR "/vector_add_fp32.neff";

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

// A model loaded on one core with zero-filled inputs and outputs bound by name.
struct Loaded {
  nrt_model_t* model = nullptr;
  nrt_tensor_set_t* inputs = nullptr;
  nrt_tensor_set_t* outputs = nullptr;
  std::vector<nrt_tensor_t*> tensors;
};

std::vector<char> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

class SysTraceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Capture calls need the runtime.
    nrt_sys_trace_config_t* config = nullptr;
    ASSERT_EQ(nrt_sys_trace_config_allocate(&config), NRT_SUCCESS);
    before_init_ = nrt_sys_trace_start(config);
    nrt_sys_trace_config_free(config);
    setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
    ASSERT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  }
  static void TearDownTestSuite() { nrt_close(); }

  void TearDown() override {
    (void)nrt_sys_trace_stop();  // NRT_INVALID when the test already stopped it
    for (Loaded& l : loaded_) {
      for (nrt_tensor_t* t : l.tensors) nrt_tensor_free(&t);
      nrt_destroy_tensor_set(&l.inputs);
      nrt_destroy_tensor_set(&l.outputs);
      nrt_unload(l.model);
    }
  }

  // Loads the sample on `vnc` and binds zero tensors to its inputs and outputs.
  Loaded* Load(int vnc) {
    std::vector<char> neff = ReadFile(kNeff);
    EXPECT_FALSE(neff.empty()) << kNeff;
    Loaded l;
    EXPECT_EQ(nrt_load(neff.data(), neff.size(), vnc, -1, &l.model), NRT_SUCCESS);
    if (l.model == nullptr) return nullptr;
    nrt_tensor_info_array_t* info = nullptr;
    EXPECT_EQ(nrt_get_model_tensor_info(l.model, &info), NRT_SUCCESS);
    EXPECT_EQ(nrt_allocate_tensor_set(&l.inputs), NRT_SUCCESS);
    EXPECT_EQ(nrt_allocate_tensor_set(&l.outputs), NRT_SUCCESS);
    for (uint64_t i = 0; i < info->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info->tensor_array[i];
      nrt_tensor_t* tensor = nullptr;
      EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, t.size, t.name, &tensor),
                NRT_SUCCESS);
      EXPECT_EQ(nrt_tensor_memset(tensor, 0, 0, t.size), NRT_SUCCESS);
      nrt_tensor_set_t* set = t.usage == NRT_TENSOR_USAGE_INPUT ? l.inputs : l.outputs;
      EXPECT_EQ(nrt_add_tensor_to_tensor_set(set, t.name, tensor), NRT_SUCCESS);
      l.tensors.push_back(tensor);
    }
    nrt_free_model_tensor_info(info);
    loaded_.push_back(l);
    return &loaded_.back();
  }

  static nrt_sys_trace_config_t* Config() {
    nrt_sys_trace_config_t* config = nullptr;
    EXPECT_EQ(nrt_sys_trace_config_allocate(&config), NRT_SUCCESS);
    return config;
  }

  // Fetches with `options` (NULL: all) and parses the document.
  static Json Fetch(const nrt_sys_trace_fetch_options_t* options = nullptr) {
    char* buffer = nullptr;
    size_t size = 0;
    EXPECT_EQ(nrt_sys_trace_fetch_events(&buffer, &size, options), NRT_SUCCESS);
    if (buffer == nullptr) return Json();
    EXPECT_EQ(std::strlen(buffer), size);
    Json doc = Json::parse(std::string(buffer, size), nullptr, /*allow_exceptions=*/false);
    nrt_sys_trace_buffer_free(buffer);
    EXPECT_FALSE(doc.is_discarded());
    EXPECT_EQ(doc.value("data_version", 0), 2);
    EXPECT_TRUE(doc["events"].is_array());
    return doc;
  }

  static std::vector<Json> OfType(const Json& doc, const std::string& type) {
    std::vector<Json> out;
    for (const Json& e : doc["events"]) {
      if (e["event_type"] == type) out.push_back(e);
    }
    return out;
  }

  // start/stop pairs of `type` by tracking id; every start has exactly one stop.
  static std::vector<std::pair<Json, Json>> Spans(const Json& doc, const std::string& type) {
    std::map<uint64_t, std::pair<Json, Json>> by_id;
    for (const Json& e : OfType(doc, type)) {
      auto& slot = by_id[e["tracking_id"].get<uint64_t>()];
      (e["phase"] == "start" ? slot.first : slot.second) = e;
    }
    std::vector<std::pair<Json, Json>> spans;
    for (auto& [id, span] : by_id) {
      EXPECT_FALSE(span.first.is_null()) << type << " " << id << " has no start";
      EXPECT_FALSE(span.second.is_null()) << type << " " << id << " has no stop";
      spans.push_back(span);
    }
    return spans;
  }

  static NRT_STATUS Execute(const Loaded* l, int repeat = 1) {
    return repeat == 1 ? nrt_execute(l->model, l->inputs, l->outputs)
                       : nrt_execute_repeat(l->model, l->inputs, l->outputs, repeat);
  }

  static inline NRT_STATUS before_init_ = NRT_SUCCESS;
  std::deque<Loaded> loaded_;  // stable addresses: Load hands out pointers
};

TEST_F(SysTraceTest, CaptureNeedsTheRuntime) { EXPECT_EQ(before_init_, NRT_UNINITIALIZED); }

TEST_F(SysTraceTest, LoadAndExecuteLeaveSpansWithSaneTimes) {
  nrt_sys_trace_config_t* config = Config();
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  const uint64_t begin_ns = NowNs();
  Loaded* l = Load(2);
  ASSERT_NE(l, nullptr);
  const uint64_t loaded_ns = NowNs();
  ASSERT_EQ(Execute(l), NRT_SUCCESS);
  ASSERT_EQ(Execute(l, 2), NRT_SUCCESS);
  const uint64_t end_ns = NowNs();
  trnsim_exec_stats_t stats{};
  stats.struct_size = sizeof(stats);
  ASSERT_EQ(trnsim_get_execution_stats(l->model, &stats), NRT_SUCCESS);

  Json doc = Fetch();
  std::set<uint64_t> ids;
  for (const Json& e : doc["events"]) {
    EXPECT_EQ(e["nc_idx"], 2) << e.dump();
    EXPECT_TRUE(ids.insert(e["id"].get<uint64_t>()).second) << "duplicate id " << e.dump();
    EXPECT_TRUE(e["data"].is_object());
    EXPECT_EQ(e["worker_gid"], -1);
    EXPECT_GT(e["thread_id"].get<uint64_t>(), 0u);
  }

  auto loads = Spans(doc, "model_load");
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_LE(begin_ns, loads[0].first["timestamp_ns"].get<uint64_t>());
  EXPECT_LE(loads[0].first["timestamp_ns"].get<uint64_t>(),
            loads[0].second["timestamp_ns"].get<uint64_t>());
  EXPECT_LE(loads[0].second["timestamp_ns"].get<uint64_t>(), loaded_ns);
  EXPECT_EQ(loads[0].second["data"]["status"], "NRT_SUCCESS");
  EXPECT_EQ(loads[0].second["data"]["model_name"], loads[0].first["data"]["model_name"]);

  auto executes = Spans(doc, "nrt_execute");
  ASSERT_EQ(executes.size(), 2u);
  EXPECT_EQ(executes[0].first["data"]["repeat"], 1);
  EXPECT_EQ(executes[1].first["data"]["repeat"], 2);
  for (auto& [start, stop] : executes) {
    EXPECT_LE(loaded_ns, start["timestamp_ns"].get<uint64_t>());
    EXPECT_LT(start["timestamp_ns"].get<uint64_t>(), stop["timestamp_ns"].get<uint64_t>());
    EXPECT_LE(stop["timestamp_ns"].get<uint64_t>(), end_ns);
    EXPECT_EQ(stop["data"]["status"], "NRT_SUCCESS");
  }

  // One runtime_execute and one nc_exec_running per run: 1 + 2, each inside its nrt_execute.
  auto runs = Spans(doc, "runtime_execute");
  auto device = Spans(doc, "nc_exec_running");
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_EQ(device.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const auto& [run_start, run_stop] = runs[i];
    const auto& [dev_start, dev_stop] = device[i];
    const auto& outer = executes[i == 0 ? 0 : 1];
    EXPECT_EQ(run_start["data"]["exec_id"], dev_start["data"]["exec_id"]);
    EXPECT_LE(outer.first["timestamp_ns"].get<uint64_t>(),
              run_start["timestamp_ns"].get<uint64_t>());
    EXPECT_LE(run_stop["timestamp_ns"].get<uint64_t>(),
              outer.second["timestamp_ns"].get<uint64_t>());
    EXPECT_LE(run_start["timestamp_ns"].get<uint64_t>(), dev_start["timestamp_ns"].get<uint64_t>());
    // The device span is the simulated duration (the sample is deterministic: every run takes
    // what the last one took).
    const uint64_t duration_ps = dev_stop["data"]["duration_ps"].get<uint64_t>();
    EXPECT_EQ(duration_ps, stats.duration_ps);
    EXPECT_EQ(dev_stop["timestamp_ns"].get<uint64_t>() - dev_start["timestamp_ns"].get<uint64_t>(),
              (duration_ps + 999) / 1000);
    EXPECT_EQ(dev_start["data"]["device_core_idx"], 2);  // LNC=1: logical 2 is physical 2
  }
  EXPECT_LT(runs[0].first["data"]["exec_id"].get<uint64_t>(),
            runs[1].first["data"]["exec_id"].get<uint64_t>());

  // Consumed: a second fetch has nothing.
  EXPECT_TRUE(Fetch()["events"].empty());
  EXPECT_EQ(nrt_sys_trace_stop(), NRT_SUCCESS);
}

TEST_F(SysTraceTest, ConfigFiltersCoresAndEventTypes) {
  nrt_sys_trace_config_t* config = Config();
  nrt_sys_trace_config_set_capture_enabled_for_nc(config, 3, false);
  ASSERT_EQ(
      nrt_sys_trace_config_set_capture_enabled_for_event_type(config, "nc_exec_running", false),
      NRT_SUCCESS);
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  Loaded* on2 = Load(2);
  Loaded* on3 = Load(3);
  ASSERT_NE(on2, nullptr);
  ASSERT_NE(on3, nullptr);
  ASSERT_EQ(Execute(on2), NRT_SUCCESS);
  ASSERT_EQ(Execute(on3), NRT_SUCCESS);
  Json doc = Fetch();
  for (const Json& e : doc["events"]) EXPECT_EQ(e["nc_idx"], 2) << e.dump();
  EXPECT_EQ(Spans(doc, "model_load").size(), 1u);
  EXPECT_EQ(Spans(doc, "nrt_execute").size(), 1u);
  EXPECT_EQ(Spans(doc, "runtime_execute").size(), 1u);
  EXPECT_TRUE(OfType(doc, "nc_exec_running").empty());
}

TEST_F(SysTraceTest, FetchOptionsSelectACoreAndTheOldestEvents) {
  nrt_sys_trace_config_t* config = Config();
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  Loaded* on1 = Load(1);
  Loaded* on4 = Load(4);
  ASSERT_NE(on1, nullptr);
  ASSERT_NE(on4, nullptr);
  ASSERT_EQ(Execute(on1), NRT_SUCCESS);
  ASSERT_EQ(Execute(on4), NRT_SUCCESS);

  nrt_sys_trace_fetch_options_t* options = nullptr;
  ASSERT_EQ(nrt_sys_trace_fetch_options_allocate(&options), NRT_SUCCESS);
  nrt_sys_trace_fetch_options_set_nc_idx(options, 4);
  nrt_sys_trace_fetch_options_set_max_events_per_nc(options, 3);
  Json first = Fetch(options);
  ASSERT_EQ(first["events"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(first["events"][i]["nc_idx"], 4);
    EXPECT_EQ(first["events"][i]["nc_local_id"], i + 1);  // the oldest three
  }
  nrt_sys_trace_fetch_options_set_defaults(options);
  nrt_sys_trace_fetch_options_set_max_events_per_nc(options, 1);
  Json second = Fetch(options);  // one per core: core 1's first, core 4's fourth
  ASSERT_EQ(second["events"].size(), 2u);
  EXPECT_EQ(second["events"][0]["nc_idx"], 1);
  EXPECT_EQ(second["events"][0]["nc_local_id"], 1);
  EXPECT_EQ(second["events"][1]["nc_idx"], 4);
  EXPECT_EQ(second["events"][1]["nc_local_id"], 4);
  nrt_sys_trace_fetch_options_set_nc_idx(options, 99);  // no such core: nothing
  EXPECT_TRUE(Fetch(options)["events"].empty());
  nrt_sys_trace_fetch_options_free(options);

  // The rest: each core's remaining events, none seen before, core 1 first.
  Json rest = Fetch();
  std::set<uint64_t> seen;
  for (const Json& e : first["events"]) seen.insert(e["id"].get<uint64_t>());
  for (const Json& e : second["events"]) seen.insert(e["id"].get<uint64_t>());
  uint64_t last_nc = 0;
  for (const Json& e : rest["events"]) {
    EXPECT_TRUE(seen.insert(e["id"].get<uint64_t>()).second) << "fetched twice: " << e.dump();
    EXPECT_GE(e["nc_idx"].get<uint64_t>(), last_nc);
    last_nc = e["nc_idx"].get<uint64_t>();
  }
  // load 2 + execute 2 + run 2 + device 2 + sync point 2 events per core.
  EXPECT_EQ(seen.size(), 20u);
}

TEST_F(SysTraceTest, FullRingDropsTheOldest) {
  nrt_sys_trace_config_t* config = Config();
  nrt_sys_trace_config_set_max_events_per_nc(config, 5);
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  Loaded* l = Load(0);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(Execute(l, 3), NRT_SUCCESS);  // 2 + 2 + 3 * 6 = 22 records on core 0
  Json doc = Fetch();
  ASSERT_EQ(doc["events"].size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(doc["events"][i]["nc_local_id"], 18 + i);
  // The newest record is the stop of nrt_execute.
  EXPECT_EQ(doc["events"][4]["event_type"], "nrt_execute");
  EXPECT_EQ(doc["events"][4]["phase"], "stop");

  // A ring of 0 keeps nothing.
  ASSERT_EQ(nrt_sys_trace_stop(), NRT_SUCCESS);
  config = Config();
  nrt_sys_trace_config_set_max_events_per_nc(config, 0);
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  ASSERT_EQ(Execute(l), NRT_SUCCESS);
  EXPECT_TRUE(Fetch()["events"].empty());
}

TEST_F(SysTraceTest, ConcurrentExecutionsAndFetchesLoseAndRepeatNothing) {
  nrt_sys_trace_config_t* config = Config();
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  Loaded* a = Load(5);
  Loaded* b = Load(6);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  constexpr int kRuns = 8;
  std::atomic<bool> done{false};
  std::vector<Json> fetched;
  std::thread fetcher([&] {
    while (!done.load()) fetched.push_back(Fetch());
  });
  std::thread ta([&] {
    for (int i = 0; i < kRuns; ++i) EXPECT_EQ(Execute(a), NRT_SUCCESS);
  });
  std::thread tb([&] {
    for (int i = 0; i < kRuns; ++i) EXPECT_EQ(Execute(b), NRT_SUCCESS);
  });
  ta.join();
  tb.join();
  done = true;
  fetcher.join();
  fetched.push_back(Fetch());
  std::set<uint64_t> ids;
  std::map<std::string, int> starts;
  for (const Json& doc : fetched) {
    for (const Json& e : doc["events"]) {
      EXPECT_TRUE(ids.insert(e["id"].get<uint64_t>()).second) << e.dump();
      if (e["phase"] == "start") starts[e["event_type"].get<std::string>()] += 1;
    }
  }
  EXPECT_EQ(ids.size(), size_t(2 * 2 + 2 * kRuns * 2 * 4));  // loads + 4 spans per run
  EXPECT_EQ(starts["nrt_execute"], 2 * kRuns);
  EXPECT_EQ(starts["runtime_execute"], 2 * kRuns);
  EXPECT_EQ(starts["nc_exec_running"], 2 * kRuns);
  EXPECT_EQ(starts["timestamp_sync_point"], 2 * kRuns);
}

// Device time (docs/profiling.md §6): every nc_exec_running event carries the core's device
// clock in data.nc_timestamp_ns; stop - start is the simulated duration rounded up to whole ns;
// the clock only advances by the core's runs (the next run starts where the last ended); a
// timestamp_sync_point follows each run and every hardware event's timestamp_ns is
// sync.cpu_timestamp_ns + (nc_timestamp_ns - sync.nc_timestamp_ns).
TEST_F(SysTraceTest, HardwareEventsCarryDeviceTimeAndFollowTheSyncPoint) {
  nrt_sys_trace_config_t* config = Config();
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  Loaded* l = Load(7);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(Execute(l, 3), NRT_SUCCESS);
  trnsim_exec_stats_t stats{};
  stats.struct_size = sizeof(stats);
  ASSERT_EQ(trnsim_get_execution_stats(l->model, &stats), NRT_SUCCESS);
  const uint64_t duration_ns = (stats.duration_ps + 999) / 1000;

  Json doc = Fetch();
  auto device = Spans(doc, "nc_exec_running");
  auto syncs = Spans(doc, "timestamp_sync_point");
  ASSERT_EQ(device.size(), 3u);
  ASSERT_EQ(syncs.size(), 3u);
  std::map<uint64_t, Json> sync_of;  // exec_id -> its sync point (start event)
  for (auto& [start, stop] : syncs) {
    EXPECT_EQ(start["timestamp_ns"], stop["timestamp_ns"]);  // a zero-length span
    EXPECT_EQ(start["data"], stop["data"]);
    EXPECT_EQ(start["timestamp_ns"], start["data"]["cpu_timestamp_ns"]);
    EXPECT_EQ(start["data"]["device_core_idx"], 7);
    sync_of[start["data"]["exec_id"].get<uint64_t>()] = start;
  }
  uint64_t previous_stop = 0;
  for (size_t i = 0; i < device.size(); ++i) {
    const auto& [start, stop] = device[i];
    const uint64_t begin = start["data"]["nc_timestamp_ns"].get<uint64_t>();
    const uint64_t end = stop["data"]["nc_timestamp_ns"].get<uint64_t>();
    EXPECT_EQ(end - begin, duration_ns);
    EXPECT_EQ(stop["data"]["duration_ps"], stats.duration_ps);
    EXPECT_GT(start["data"]["model_id"].get<uint64_t>(), 0u);  // the process's id of the model
    EXPECT_EQ(start["data"]["model_id"], device[0].first["data"]["model_id"]);
    EXPECT_EQ(stop["data"]["device_core_idx"], 7);
    if (i > 0) {
      EXPECT_EQ(begin, previous_stop);  // no other run on core 7 in between
    }
    previous_stop = end;
    const uint64_t exec_id = start["data"]["exec_id"].get<uint64_t>();
    ASSERT_EQ(sync_of.count(exec_id), 1u) << "no sync point for exec_id " << exec_id;
    const Json& sync = sync_of[exec_id];
    const uint64_t sync_cpu = sync["data"]["cpu_timestamp_ns"].get<uint64_t>();
    const uint64_t sync_nc = sync["data"]["nc_timestamp_ns"].get<uint64_t>();
    EXPECT_EQ(sync_nc, end);  // LNC=1: the core's clock stands at the run's end
    EXPECT_EQ(start["timestamp_ns"].get<uint64_t>(), sync_cpu + begin - sync_nc);
    EXPECT_EQ(stop["timestamp_ns"].get<uint64_t>(), sync_cpu + end - sync_nc);
  }
}

TEST_F(SysTraceTest, LifecycleErrorsAndBadArguments) {
  EXPECT_EQ(nrt_sys_trace_stop(), NRT_INVALID);  // not capturing
  EXPECT_TRUE(Fetch()["events"].empty());        // not capturing: nothing buffered
  EXPECT_EQ(nrt_sys_trace_start(nullptr), NRT_INVALID);
  nrt_sys_trace_config_t* config = Config();
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  EXPECT_EQ(nrt_sys_trace_start(config), NRT_INVALID);  // already capturing
  nrt_sys_trace_config_free(config);

  size_t size = 0;
  char* buffer = nullptr;
  EXPECT_EQ(nrt_sys_trace_fetch_events(nullptr, &size, nullptr), NRT_INVALID);
  EXPECT_EQ(nrt_sys_trace_fetch_events(&buffer, nullptr, nullptr), NRT_INVALID);
  char stale = 'x';
  buffer = &stale;  // must be NULL on entry
  EXPECT_EQ(nrt_sys_trace_fetch_events(&buffer, &size, nullptr), NRT_INVALID);
  EXPECT_EQ(buffer, &stale);
  nrt_sys_trace_buffer_free(nullptr);

  EXPECT_EQ(nrt_sys_trace_stop(), NRT_SUCCESS);
  EXPECT_EQ(nrt_sys_trace_stop(), NRT_INVALID);
  // Start again after a stop: a fresh, empty capture.
  config = Config();
  ASSERT_EQ(nrt_sys_trace_start(config), NRT_SUCCESS);
  nrt_sys_trace_config_free(config);
  EXPECT_TRUE(Fetch()["events"].empty());
}

}  // namespace
