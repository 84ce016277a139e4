// runtime/debug: the tensor-read event's bytes, one core's FIFO and eventfd (readiness exactly
// while events are queued, drop-newest when full, one client), the process's streams (core
// checks, descriptors, delivery, the built-in consumer refusing clients) and the dump's file
// layout and directory names.
#include "runtime/debug/debug_streams.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/debug/debug_dump.h"
#include "runtime/debug/debug_event.h"
#include "runtime/debug/debug_stream.h"
#include "runtime/neff/npy.h"

namespace trnsim::runtime::debug {
namespace {

bool Readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

uint64_t U64At(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

driver::DebugPrint Print(isa::Dtype dtype, std::vector<uint64_t> shape, std::vector<uint8_t> data) {
  driver::DebugPrint p;
  p.dtype = dtype;
  p.shape = std::move(shape);
  p.data = std::move(data);
  return p;
}

TEST(DebugEventTest, PayloadIsTheHeadersLayout) {
  const std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<uint64_t> shape = {2, 3};
  StatusOr<DebugEvent> e = MakeTensorReadEvent("pfx", 5, isa::Dtype::kBfloat16, shape, data);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->type, 1u);
  ASSERT_EQ(e->payload_bytes, 1024u + 12u);
  const uint8_t* p = e->payload.get();
  EXPECT_STREQ(reinterpret_cast<const char*>(p), "pfx");
  for (size_t i = 3; i < 512; ++i) ASSERT_EQ(p[i], 0) << i;
  uint32_t nc = 0, pipe = 0;
  std::memcpy(&nc, p + 512, 4);
  std::memcpy(&pipe, p + 516, 4);
  EXPECT_EQ(nc, 5u);
  EXPECT_EQ(pipe, 1u);
  EXPECT_STREQ(reinterpret_cast<const char*>(p + 520), "bfloat16");
  EXPECT_EQ(U64At(p + 536), 2u);
  EXPECT_EQ(U64At(p + 544), 3u);
  for (int d = 2; d < 8; ++d) EXPECT_EQ(U64At(p + 536 + 8 * d), 0u);
  EXPECT_EQ(U64At(p + 600), 12u);
  for (size_t i = 608; i < 1024; ++i) ASSERT_EQ(p[i], 0) << i;
  EXPECT_EQ(std::vector<uint8_t>(p + 1024, p + 1036), data);

  // Refusals: a prefix that does not fit, shapes that do not match the data.
  EXPECT_FALSE(MakeTensorReadEvent(std::string(512, 'a'), 0, isa::Dtype::kUint8,
                                   std::vector<uint64_t>{1}, std::vector<uint8_t>{0})
                   .ok());
  EXPECT_FALSE(MakeTensorReadEvent("p", 0, isa::Dtype::kUint8, std::vector<uint64_t>{2},
                                   std::vector<uint8_t>{0})
                   .ok());
  EXPECT_FALSE(MakeTensorReadEvent("p", 0, isa::Dtype::kUint8, std::vector<uint64_t>(9, 1),
                                   std::vector<uint8_t>{0})
                   .ok());
  EXPECT_FALSE(MakeTensorReadEvent("p", 0, isa::Dtype::kUint64,
                                   std::vector<uint64_t>{1ull << 62, 1ull << 62},
                                   std::vector<uint8_t>(8))
                   .ok());
  EXPECT_EQ(DebugDtypeName(isa::Dtype::kFloat8E4), "float8_e4m3");
  EXPECT_EQ(DebugDtypeName(isa::Dtype::kFloat32r), "float32r");
  EXPECT_EQ(DebugDtypeName(isa::Dtype::kUint64), "uint64");
}

std::vector<DebugEvent> Events(int n) {
  std::vector<DebugEvent> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(MakeTensorReadEvent("e" + std::to_string(i), 0, isa::Dtype::kUint8,
                                      std::vector<uint64_t>{1}, std::vector<uint8_t>{uint8_t(i)})
                      .value());
  }
  return out;
}

uint8_t DataOf(const DebugEvent& e) { return e.payload.get()[1024]; }

TEST(DebugStreamTest, FifoEventfdAndOneClient) {
  DebugStream s(3, 4);
  DebugStream::PushResult none = s.Push(Events(2));
  EXPECT_FALSE(none.connected);  // no client: dropped
  EXPECT_EQ(none.queued, 0u);
  StatusOr<int> fd = s.Connect();
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(s.Connect().status().code(), StatusCode::kInvalid);
  EXPECT_FALSE(Readable(*fd));
  EXPECT_FALSE(s.Pop().has_value());

  DebugStream::PushResult r = s.Push(Events(6));
  EXPECT_EQ(r.queued, 4u);
  EXPECT_EQ(r.dropped_full, 2u);
  EXPECT_EQ(r.dropped_total, 2u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(Readable(*fd)) << i;
    std::optional<DebugEvent> e = s.Pop();
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(DataOf(*e), i) << "the oldest first; the newest were dropped";
  }
  EXPECT_FALSE(Readable(*fd));
  EXPECT_FALSE(s.Pop().has_value());
  EXPECT_EQ(s.Push(Events(5)).dropped_total, 3u);  // counted since connect

  s.Disconnect();  // discards the queue, closes the descriptor
  EXPECT_EQ(s.fd(), -1);
  StatusOr<int> again = s.Connect();
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(s.Pop().has_value());
  EXPECT_EQ(s.Push(Events(1)).dropped_total, 0u);
}

TEST(DebugStreamsTest, CoresDescriptorsAndDelivery) {
  DebugStreams streams(2, DebugStreamOptions{2, ""});
  EXPECT_FALSE(streams.builtin_consumer());
  EXPECT_EQ(streams.Connect(2).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(streams.Connect(-1).status().code(), StatusCode::kInvalid);
  StatusOr<int> fd0 = streams.Connect(0);
  StatusOr<int> fd1 = streams.Connect(1);
  ASSERT_TRUE(fd0.ok() && fd1.ok());
  EXPECT_EQ(streams.Connect(0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(streams.Read(*fd0).status().code(), StatusCode::kQueueEmpty);
  EXPECT_EQ(streams.Read(12345).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(streams.Close(12345).code(), StatusCode::kInvalid);

  std::vector<driver::DebugPrint> prints = {Print(isa::Dtype::kInt32, {1, 1}, {1, 0, 0, 0}),
                                            Print(isa::Dtype::kInt8, {1, 2}, {7, 8}),
                                            Print(isa::Dtype::kInt8, {1, 1}, {9})};
  std::vector<std::string_view> prefixes = {"a", "b", "c"};
  streams.Deliver(1, prints, prefixes, 0);  // core 1 only; a buffer of 2 drops "c"
  EXPECT_FALSE(Readable(*fd0));
  EXPECT_TRUE(Readable(*fd1));
  StatusOr<DebugEvent> a = streams.Read(*fd1);
  ASSERT_TRUE(a.ok());
  EXPECT_STREQ(reinterpret_cast<const char*>(a->payload.get()), "a");
  uint32_t nc = 0;
  std::memcpy(&nc, a->payload.get() + 512, 4);
  EXPECT_EQ(nc, 1u);
  StatusOr<DebugEvent> b = streams.Read(*fd1);
  ASSERT_TRUE(b.ok());
  EXPECT_STREQ(reinterpret_cast<const char*>(b->payload.get()), "b");
  EXPECT_EQ(streams.Read(*fd1).status().code(), StatusCode::kQueueEmpty);

  EXPECT_TRUE(streams.Close(*fd1).ok());
  EXPECT_EQ(streams.Read(*fd1).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(streams.Close(*fd1).code(), StatusCode::kInvalid);
  streams.Deliver(1, prints, prefixes, 0);  // no client now: dropped
  StatusOr<int> reconnected = streams.Connect(1);
  EXPECT_TRUE(reconnected.ok());
  streams.Deliver(7, prints, prefixes, 0);  // not a core of the process: ignored
}

TEST(DebugStreamsTest, DestructionClosesEveryDescriptor) {
  int fds[2] = {-1, -1};
  {
    DebugStreams streams(2, DebugStreamOptions{});
    fds[0] = streams.Connect(0).value();
    fds[1] = streams.Connect(1).value();
    EXPECT_NE(fcntl(fds[0], F_GETFD), -1);
    EXPECT_NE(fcntl(fds[1], F_GETFD), -1);
  }  // what nrt_close does
  for (int fd : fds) {
    errno = 0;
    EXPECT_EQ(fcntl(fd, F_GETFD), -1) << fd;
    EXPECT_EQ(errno, EBADF) << fd;
  }
}

TEST(DebugDumpTest, DirectoryNames) {
  EXPECT_EQ(PrefixDirName("x/hbm"), "x_hbm");
  EXPECT_EQ(PrefixDirName(""), "_");
  EXPECT_EQ(PrefixDirName("."), "_.");
  EXPECT_EQ(PrefixDirName(".."), "_..");
  EXPECT_EQ(PrefixDirName("a\nb\x7f"), "a_b_");
  EXPECT_EQ(PrefixDirName("spaces ok"), "spaces ok");
  const std::string a = PrefixDirName(std::string(300, 'p') + "1");
  const std::string b = PrefixDirName(std::string(300, 'p') + "2");
  EXPECT_EQ(a.size(), 200u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, 183), std::string(183, 'p'));
}

TEST(DebugDumpTest, FilesAndIterations) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("debug_dump_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  {
    DebugStreams streams(1, DebugStreamOptions{8, dir.string()});
    EXPECT_TRUE(streams.builtin_consumer());
    StatusOr<int> refused = streams.Connect(0);
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalid);
    EXPECT_NE(refused.status().message().find("NEURON_RT_DEBUG_OUTPUT_DIR"), std::string::npos);
    // bf16 1.5 (0x3FC0) and -2 (0xC000): widened to float32 exactly.
    std::vector<driver::DebugPrint> prints = {
        Print(isa::Dtype::kBfloat16, {1, 2}, {0xC0, 0x3F, 0x00, 0xC0}),
        Print(isa::Dtype::kInt16, {2, 1}, {1, 0, 0xFF, 0xFF})};
    std::vector<std::string_view> prefixes = {"t/x", "t/x"};
    streams.Deliver(0, prints, prefixes, 0);
    streams.Deliver(0, std::span(prints).first(1), std::span(prefixes).first(1), 0);
  }
  auto read = [](const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
  };
  for (int it = 0; it < 3; ++it) {
    const std::filesystem::path where = dir / "t_x" / "core_0" / std::to_string(it);
    ASSERT_TRUE(std::filesystem::exists(where / "tensor.npy")) << where;
    ASSERT_TRUE(std::filesystem::exists(where / "info.json")) << where;
    StatusOr<neff::NpyArray> npy = neff::ParseNpy(read(where / "tensor.npy"), "tensor.npy");
    ASSERT_TRUE(npy.ok()) << npy.status().ToString();
    std::vector<uint8_t> file = read(where / "tensor.npy");
    if (it == 1) {
      EXPECT_EQ(npy->descr, "<i2");
      EXPECT_EQ(npy->shape, (std::vector<uint64_t>{2, 1}));
    } else {
      EXPECT_EQ(npy->descr, "<f4");
      EXPECT_EQ(npy->shape, (std::vector<uint64_t>{1, 2}));
      float v[2];
      std::memcpy(v, file.data() + npy->data_offset, 8);
      EXPECT_EQ(v[0], 1.5f);
      EXPECT_EQ(v[1], -2.0f);
      std::vector<uint8_t> info = read(where / "info.json");
      const std::string text(info.begin(), info.end());
      EXPECT_NE(text.find("\"dtype\": \"bfloat16\""), std::string::npos) << text;
      EXPECT_NE(text.find("\"npy_dtype\": \"float32\""), std::string::npos) << text;
      EXPECT_NE(text.find("\"prefix\": \"t/x\""), std::string::npos) << text;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "t_x" / "core_0" / "3"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace trnsim::runtime::debug
