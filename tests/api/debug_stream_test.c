/*
 * The debug stream (<nrt/ndebug_stream.h>) from plain C11, against the installed tree, with the
 * debug_print kernel (argument: debug_print.neff, assembled from tests/api/debug_print.s; run on
 * trn2.3xlarge at LNC=1). Every execution of the kernel makes three device prints, in this
 * order: "x/hbm" (x as fp32 [4, 2, 4]), "x tile" (x as fp32 [4, 8]), "doubled bf16" (2x as bf16
 * [4, 8]). Checked:
 *  - the lifecycle and argument statuses (before nrt_init, NULL pointers, unknown cores and
 *    descriptors, after nrt_close);
 *  - connect, poll() on the descriptor, every header and payload field and the tensor bytes of
 *    each event, NRT_QUEUE_EMPTY and no POLLIN once drained;
 *  - events from before connect, and from while disconnected, are dropped; a second client is
 *    NRT_INVALID; close then reconnect;
 *  - nrt_execute_repeat (each iteration), the nrta_* compute queue, implicit async nrt_execute
 *    (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS), another core's stream (logical_nc_id);
 *  - NEURON_RT_DEBUG_STREAM_BUFFER_SIZE=4: the fifth and sixth events are dropped, the first
 *    four kept; an invalid size fails nrt_init.
 * Runs the same in-process and through neurond (TRNSIM_DAEMON). Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <nrt/ndebug_stream.h>
#include <nrt/nrt.h>
#include <nrt/nrt_async.h>
#include <nrt/nrt_experimental.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_async_wait.h"
#include "c_check.h"
#include "c_files.h"

#define ROWS 4
#define COLS 8
#define N (ROWS * COLS)

static const char *neff_path;
static float x[N];

typedef struct {
  nrt_model_t *model;
  nrt_tensor_set_t *inputs, *outputs;
  nrt_tensor_t *tx, *ty;
} loaded_t;

static int load(int vnc, loaded_t *m) {
  size_t size = 0;
  void *neff = read_file(neff_path, &size);
  if (neff == NULL) return 0;
  int ok = nrt_load(neff, size, vnc, 1, &m->model) == NRT_SUCCESS;
  free(neff);
  ok = ok &&
       nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, sizeof(x), "x", &m->tx) == NRT_SUCCESS;
  ok = ok &&
       nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, sizeof(x), "y", &m->ty) == NRT_SUCCESS;
  ok = ok && nrt_tensor_write(m->tx, x, 0, sizeof(x)) == NRT_SUCCESS;
  ok = ok && nrt_allocate_tensor_set(&m->inputs) == NRT_SUCCESS;
  ok = ok && nrt_allocate_tensor_set(&m->outputs) == NRT_SUCCESS;
  ok = ok && nrt_add_tensor_to_tensor_set(m->inputs, "x", m->tx) == NRT_SUCCESS;
  ok = ok && nrt_add_tensor_to_tensor_set(m->outputs, "y", m->ty) == NRT_SUCCESS;
  return ok;
}

static int readable(int fd, int timeout_ms) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN) != 0;
}

static uint16_t bf16_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16); /* 2x is a small integer or half-integer: exact in bf16 */
}

static int all_zero(const char *bytes, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (bytes[i] != 0) return 0;
  return 1;
}

/* Reads one event of `fd` and checks it is print `which` (0 "x/hbm", 1 "x tile", 2 "doubled
 * bf16") of logical core `vnc`. */
static void expect_event(int fd, int which, int vnc) {
  ndebug_stream_event_header_t header;
  memset(&header, 0xEE, sizeof(header));
  void *payload = NULL;
  EXPECT_EQ(nrt_debug_client_read_one_event(fd, &header, &payload), NRT_SUCCESS);
  if (payload == NULL) {
    EXPECT_TRUE(payload != NULL);
    return;
  }
  const ndebug_stream_payload_debug_tensor_read_t *p = payload;
  const size_t data_bytes = which == 2 ? N * 2 : N * 4;
  EXPECT_EQ(header.type, NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ);
  EXPECT_EQ(header.data_size, sizeof(ndebug_stream_payload_debug_tensor_read_t) + data_bytes);
  EXPECT_EQ(sizeof(ndebug_stream_payload_debug_tensor_read_t), 1024);
  EXPECT_TRUE(all_zero(header.reserved, sizeof(header.reserved)));
  static const char *const prefixes[] = {"x/hbm", "x tile", "doubled bf16"};
  EXPECT_EQ(strcmp(p->prefix, prefixes[which]), 0);
  EXPECT_TRUE(
      all_zero(p->prefix + strlen(prefixes[which]), sizeof(p->prefix) - strlen(prefixes[which])));
  EXPECT_EQ(p->logical_nc_id, vnc);
  EXPECT_EQ(p->pipe, 1);
  EXPECT_EQ(strcmp(p->tensor_dtype, which == 2 ? "bfloat16" : "float32"), 0);
  const uint64_t shape[3][8] = {{4, 2, 4}, {4, 8}, {4, 8}};
  for (int d = 0; d < 8; ++d) EXPECT_EQ(p->tensor_shape[d], shape[which][d]);
  EXPECT_EQ(p->tensor_data_size, data_bytes);
  EXPECT_TRUE(all_zero(p->reserved0, sizeof(p->reserved0)));
  int mismatches = 0;
  for (int i = 0; i < N; ++i) {
    if (which == 2) {
      uint16_t got;
      memcpy(&got, p->tensor_data + 2 * i, 2);
      mismatches += got != bf16_bits(2.0f * x[i]);
    } else {
      float got;
      memcpy(&got, p->tensor_data + 4 * i, 4);
      mismatches += got != x[i];
    }
  }
  EXPECT_EQ(mismatches, 0);
  free(payload);
}

static void expect_empty(int fd) {
  ndebug_stream_event_header_t header;
  void *payload = (void *)&header; /* must stay untouched */
  EXPECT_TRUE(!readable(fd, 0));
  EXPECT_EQ(nrt_debug_client_read_one_event(fd, &header, &payload), NRT_QUEUE_EMPTY);
  EXPECT_TRUE(payload == (void *)&header);
}

static void check_stream(void) {
  loaded_t m0, m1;
  EXPECT_TRUE(load(0, &m0));
  EXPECT_TRUE(load(1, &m1));

  /* Before any client: the prints of this execution are dropped. */
  EXPECT_EQ(nrt_execute(m0.model, m0.inputs, m0.outputs), NRT_SUCCESS);
  float y[N];
  EXPECT_EQ(nrt_tensor_read(m0.ty, y, 0, sizeof(y)), NRT_SUCCESS);
  EXPECT_TRUE(y[5] == 2.0f * x[5] && y[N - 1] == 2.0f * x[N - 1]);

  int fd = -1;
  EXPECT_EQ(nrt_debug_client_connect(0, &fd), NRT_SUCCESS);
  EXPECT_TRUE(fd >= 0);
  expect_empty(fd);
  int second = -7;
  EXPECT_EQ(nrt_debug_client_connect(0, &second), NRT_INVALID); /* one client per stream */
  EXPECT_EQ(second, -7);
  EXPECT_EQ(nrt_debug_client_connect(2, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_debug_client_connect(-1, &second), NRT_INVALID);
  EXPECT_EQ(nrt_debug_client_connect(1000, &second), NRT_INVALID);

  /* One execution: three events, poll()able, in order. */
  EXPECT_EQ(nrt_execute(m0.model, m0.inputs, m0.outputs), NRT_SUCCESS);
  EXPECT_TRUE(readable(fd, 10000));
  expect_event(fd, 0, 0);
  EXPECT_TRUE(readable(fd, 0));
  expect_event(fd, 1, 0);
  expect_event(fd, 2, 0);
  expect_empty(fd);

  /* nrt_execute_repeat: every iteration's prints. */
  EXPECT_EQ(nrt_execute_repeat(m0.model, m0.inputs, m0.outputs, 2), NRT_SUCCESS);
  for (int r = 0; r < 2; ++r)
    for (int which = 0; which < 3; ++which) expect_event(fd, which, 0);
  expect_empty(fd);

  /* The explicit async API's compute queue. */
  NRT_STATUS ret = NRT_FAILURE;
  nrta_seq_t seq = 0;
  EXPECT_EQ(nrta_execute_schedule(m0.model, m0.inputs, m0.outputs, 0, &ret, &seq), NRT_SUCCESS);
  EXPECT_TRUE(wait_for(seq));
  EXPECT_EQ(ret, NRT_SUCCESS);
  for (int which = 0; which < 3; ++which) expect_event(fd, which, 0);
  expect_empty(fd);

  /* Core 1 has a stream of its own; core 0's client sees nothing of it. */
  int fd1 = -1;
  EXPECT_EQ(nrt_debug_client_connect(1, &fd1), NRT_SUCCESS);
  EXPECT_TRUE(fd1 >= 0 && fd1 != fd);
  EXPECT_EQ(nrt_execute(m1.model, m1.inputs, m1.outputs), NRT_SUCCESS);
  for (int which = 0; which < 3; ++which) expect_event(fd1, which, 1);
  expect_empty(fd1);
  expect_empty(fd);
  nrt_debug_client_connect_close(fd1);

  /* Close: the descriptor is unknown from then on, events are dropped until a reconnect. */
  EXPECT_EQ(nrt_execute(m0.model, m0.inputs, m0.outputs), NRT_SUCCESS); /* 3 queued ... */
  nrt_debug_client_connect_close(fd);                                   /* ... and discarded */
  ndebug_stream_event_header_t header;
  void *payload = NULL;
  EXPECT_EQ(nrt_debug_client_read_one_event(fd, &header, &payload), NRT_INVALID);
  nrt_debug_client_connect_close(fd); /* unknown now: ignored, logged */
  nrt_debug_client_connect_close(-1); /* never valid: ignored, logged */
  EXPECT_EQ(nrt_execute(m0.model, m0.inputs, m0.outputs), NRT_SUCCESS); /* no client: dropped */
  EXPECT_EQ(nrt_debug_client_connect(0, &fd), NRT_SUCCESS);
  expect_empty(fd);
  EXPECT_EQ(nrt_execute(m0.model, m0.inputs, m0.outputs), NRT_SUCCESS);
  for (int which = 0; which < 3; ++which) expect_event(fd, which, 0);
  expect_empty(fd);

  /* Argument checks. */
  EXPECT_EQ(nrt_debug_client_read_one_event(fd, NULL, &payload), NRT_INVALID);
  EXPECT_EQ(nrt_debug_client_read_one_event(fd, &header, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_debug_client_read_one_event(-1, &header, &payload), NRT_INVALID);
  EXPECT_EQ(nrt_debug_client_read_one_event(fd + 1000, &header, &payload), NRT_INVALID);
  /* The descriptor is left open for nrt_close to close. */
}

/* A 4-event buffer: two executions make 6; the newest 2 are dropped. */
static void check_overflow(void) {
  loaded_t m;
  EXPECT_TRUE(load(0, &m));
  int fd = -1;
  EXPECT_EQ(nrt_debug_client_connect(0, &fd), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(m.model, m.inputs, m.outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(m.model, m.inputs, m.outputs), NRT_SUCCESS);
  expect_event(fd, 0, 0);
  expect_event(fd, 1, 0);
  expect_event(fd, 2, 0);
  expect_event(fd, 0, 0);
  expect_empty(fd);
  /* Room again: the next execution's events all arrive. */
  EXPECT_EQ(nrt_execute(m.model, m.inputs, m.outputs), NRT_SUCCESS);
  for (int which = 0; which < 3; ++which) expect_event(fd, which, 0);
  expect_empty(fd);
  nrt_debug_client_connect_close(fd);
}

/* Implicit async mode: nrt_execute returns once queued; the prints arrive with the execution. */
static void check_implicit_async(void) {
  loaded_t m;
  EXPECT_TRUE(load(0, &m));
  int fd = -1;
  EXPECT_EQ(nrt_debug_client_connect(0, &fd), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(m.model, m.inputs, m.outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(m.model, m.inputs, m.outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_drain_queued_execs(0), NRT_SUCCESS);
  for (int r = 0; r < 2; ++r)
    for (int which = 0; which < 3; ++which) expect_event(fd, which, 0);
  expect_empty(fd);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s debug_print.neff\n", argv[0]);
    return 2;
  }
  neff_path = argv[1];
  for (int i = 0; i < N; ++i) x[i] = 0.5f * (float)i - 3.0f;

  /* Before nrt_init: argument checks first, then the lifecycle. */
  int fd = -1;
  ndebug_stream_event_header_t header;
  void *payload = NULL;
  EXPECT_EQ(nrt_debug_client_connect(0, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_debug_client_connect(0, &fd), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_debug_client_read_one_event(3, NULL, &payload), NRT_INVALID);
  EXPECT_EQ(nrt_debug_client_read_one_event(3, &header, &payload), NRT_UNINITIALIZED);
  nrt_debug_client_connect_close(3); /* ignored, logged */

  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  check_stream();
  nrt_close();
  EXPECT_EQ(nrt_debug_client_connect(0, &fd), NRT_CLOSED);
  EXPECT_EQ(nrt_debug_client_read_one_event(3, &header, &payload), NRT_CLOSED);
  nrt_debug_client_connect_close(3);

  /* The buffer size is read at nrt_init. */
  setenv("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", "0", 1);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_INVALID);
  setenv("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", "lots", 1);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_INVALID);
  setenv("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", "4", 1);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  check_overflow();
  nrt_close();

  unsetenv("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE");
  setenv("NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", "2", 1);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  check_implicit_async();
  nrt_close();
  C_CHECK_SUMMARY();
}
