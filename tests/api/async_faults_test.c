/*
 * A hardware fault on the explicit async API's compute queue, from plain C11 against the
 * installed tree (vector_add_fp32 on trn2.3xlarge, LNC=1, TRNSIM_FAULTS="nc_ue:nc=0,exec=2"):
 * the 2nd execution on core 0 fails with NRT_EXEC_HW_ERR_NC_UE in *ret, the execution queued
 * behind it completes with NRT_EXEC_UNIT_UNRECOVERABLE without running, later schedules on that
 * queue are refused with NRT_EXEC_UNIT_UNRECOVERABLE, while core 0's tensor-op queues and core
 * 2's compute queue keep working; nrt_close + nrt_init recovers. Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nrt/nrt.h>
#include <nrt/nrt_async.h>

#include "c_async_wait.h"
#include "c_check.h"
#include "c_files.h"

#define ELEMENTS (512 * 1024)
#define BYTES (ELEMENTS * 4)

/* A vector_add model on `vnc` with its tensors: a = 1.5, b = 2.25 everywhere. */
typedef struct {
  nrt_model_t *model;
  nrt_tensor_t *a, *b, *out;
  nrt_tensor_set_t *inputs, *outputs;
} setup_t;

static setup_t set_up(const void *neff, size_t size, int vnc, float *host) {
  setup_t s;
  memset(&s, 0, sizeof(s));
  EXPECT_EQ(nrt_load(neff, size, vnc, 1, &s.model), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, BYTES, "a", &s.a), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, BYTES, "b", &s.b), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, BYTES, "out", &s.out),
            NRT_SUCCESS);
  for (int e = 0; e < ELEMENTS; ++e) host[e] = 1.5f;
  EXPECT_EQ(nrt_tensor_write(s.a, host, 0, BYTES), NRT_SUCCESS);
  for (int e = 0; e < ELEMENTS; ++e) host[e] = 2.25f;
  EXPECT_EQ(nrt_tensor_write(s.b, host, 0, BYTES), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(&s.inputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(&s.outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(s.inputs, "a", s.a), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(s.inputs, "b", s.b), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(s.outputs, "out", s.out), NRT_SUCCESS);
  return s;
}

static int count_sums(const float *host) {
  int right = 0;
  for (int e = 0; e < ELEMENTS; ++e) right += host[e] == 3.75f;
  return right;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    printf("usage: %s vector_add_fp32.neff\n", argv[0]);
    return 2;
  }
  size_t size = 0;
  void *neff = read_file(argv[1], &size);
  EXPECT_TRUE(neff != NULL);
  if (neff == NULL) C_CHECK_SUMMARY();
  float *host = malloc(BYTES);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  setup_t core0 = set_up(neff, size, 0, host);
  setup_t core2 = set_up(neff, size, 2, host);

  NRT_STATUS ret[3];
  nrta_seq_t seq[3];
  for (int i = 0; i < 3; ++i) {
    ret[i] = NRT_FAILURE;
    EXPECT_EQ(nrta_execute_schedule(core0.model, core0.inputs, core0.outputs, 0, &ret[i], &seq[i]),
              NRT_SUCCESS);
  }
  EXPECT_TRUE(wait_for(seq[2]));
  EXPECT_EQ(ret[0], NRT_SUCCESS);
  EXPECT_EQ(ret[1], NRT_EXEC_HW_ERR_NC_UE);
  EXPECT_EQ(ret[2], NRT_EXEC_UNIT_UNRECOVERABLE); /* queued behind the fault: never ran */
  NRT_STATUS later = NRT_FAILURE;
  nrta_seq_t later_seq = 0;
  EXPECT_EQ(nrta_execute_schedule(core0.model, core0.inputs, core0.outputs, 0, &later, &later_seq),
            NRT_EXEC_UNIT_UNRECOVERABLE);
  EXPECT_EQ(later, NRT_FAILURE); /* a refused schedule writes nothing */
  /* Core 0's tensor-op queue still works: the first execution's output. */
  memset(host, 0, BYTES);
  EXPECT_EQ(nrta_tensor_read(host, core0.out, 0, BYTES, 0, 1, &later, &later_seq), NRT_SUCCESS);
  EXPECT_TRUE(wait_for(later_seq));
  EXPECT_EQ(later, NRT_SUCCESS);
  EXPECT_EQ(count_sums(host), ELEMENTS);
  /* Core 2's compute queue works. */
  EXPECT_EQ(nrta_execute_schedule(core2.model, core2.inputs, core2.outputs, 0, &later, &later_seq),
            NRT_SUCCESS);
  EXPECT_TRUE(wait_for(later_seq));
  EXPECT_EQ(later, NRT_SUCCESS);
  /* The core itself is dead until re-init: the blocking call fails the same way. */
  EXPECT_EQ(nrt_execute(core0.model, core0.inputs, core0.outputs), NRT_EXEC_HW_ERR_NC_UE);

  nrt_close();
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  setup_t again = set_up(neff, size, 0, host);
  EXPECT_EQ(nrta_execute_schedule(again.model, again.inputs, again.outputs, 0, &later, &later_seq),
            NRT_SUCCESS);
  EXPECT_EQ(NRTA_SEQ_GET_SEQ_NUM(later_seq), 1); /* fresh queues */
  EXPECT_TRUE(wait_for(later_seq));
  EXPECT_EQ(later, NRT_SUCCESS);
  memset(host, 0, BYTES);
  EXPECT_EQ(nrt_tensor_read(again.out, host, 0, BYTES), NRT_SUCCESS);
  EXPECT_EQ(count_sums(host), ELEMENTS);
  nrt_close();
  free(host);
  free(neff);
  C_CHECK_SUMMARY();
}
