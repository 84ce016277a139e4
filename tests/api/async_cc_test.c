/*
 * Host-driven collectives on the collectives execution unit (nrta_cc_prepare, nrta_cc_schedule)
 * from plain C11 against the installed tree: four ranks on logical cores 0..3 of one process
 * (trn2.3xlarge, LNC=1, NEURON_RT_ROOT_COMM_ID set, NEURON_RT_EXEC_TIMEOUT=2). Every rank's
 * request is scheduled from this one thread; the ranks meet on their queues' threads.
 *  - all-reduce (add) of two fp32 tensors over {0,1,2,3}, all-gather over {3,1}, reduce-scatter
 *    (max) over {0,1,2,3}: statuses, sequence ids and exact outputs;
 *  - equal requests give the same context; argument and group errors;
 *  - a rank that never comes: NRT_TIMEOUT in *ret, after which that collectives queue is
 *    NRT_EXEC_UNIT_UNRECOVERABLE while the core's other queues still work.
 * Last line: "N passed, M failed".
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

#define RANKS 4
#define N 256 /* fp32 elements per rank tensor */

static nrt_tensor_t *make_tensor(int vnc, size_t bytes, const float *values) {
  nrt_tensor_t *t = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, bytes, "cc", &t), NRT_SUCCESS);
  if (values != NULL) EXPECT_EQ(nrt_tensor_write(t, values, 0, bytes), NRT_SUCCESS);
  return t;
}

static float input_value(int rank, int tensor, int e) {
  return (float)((e % 13) * (rank + 1) + 100 * tensor + rank);
}

int main(void) {
  uint32_t all[RANKS] = {0, 1, 2, 3};
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  for (uint32_t r = 0; r < RANKS; ++r) {
    EXPECT_EQ(nrt_cc_global_comm_init(r, r, RANKS), NRT_SUCCESS);
  }
  nrt_cc_comm_t comm[RANKS];
  for (uint32_t r = 0; r < RANKS; ++r) {
    nrt_cc_comm_t c = {all, r, RANKS, r, RANKS, r};
    comm[r] = c;
  }

  /* All-reduce of two tensors per rank. */
  nrt_tensor_t *in[RANKS][2], *out[RANKS][2];
  float values[N];
  for (int r = 0; r < RANKS; ++r) {
    for (int t = 0; t < 2; ++t) {
      for (int e = 0; e < N; ++e) values[e] = input_value(r, t, e);
      in[r][t] = make_tensor(r, sizeof(values), values);
      out[r][t] = make_tensor(r, sizeof(values), NULL);
    }
  }
  nrt_cc_context_t *ctx[RANKS];
  NRT_STATUS ret[RANKS];
  nrta_seq_t seq[RANKS];
  for (int r = 0; r < RANKS; ++r) {
    nrt_tensor_list_t inputs = {in[r], 2}, outputs = {out[r], 2};
    ctx[r] = NULL;
    EXPECT_EQ(nrta_cc_prepare(&comm[r], &inputs, &outputs, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                              NRT_CC_ALLREDUCE, &ctx[r]),
              NRT_SUCCESS);
    nrt_cc_context_t *again = NULL;
    EXPECT_EQ(nrta_cc_prepare(&comm[r], &inputs, &outputs, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                              NRT_CC_ALLREDUCE, &again),
              NRT_SUCCESS);
    EXPECT_TRUE(again == ctx[r]); /* cached by signature */
  }
  for (int r = 0; r < RANKS; ++r) {
    ret[r] = NRT_FAILURE;
    EXPECT_EQ(nrta_cc_schedule(&ctx[r], 0, &ret[r], &seq[r]), NRT_SUCCESS);
    EXPECT_EQ(NRTA_SEQ_GET_XU_ID(seq[r]), ((uint64_t)r << 8) | (NRTA_XU_COLLECTIVES << 4) | 0);
    EXPECT_EQ(NRTA_SEQ_GET_SEQ_NUM(seq[r]), 1);
  }
  for (int r = 0; r < RANKS; ++r) {
    EXPECT_TRUE(wait_for(seq[r]));
    EXPECT_EQ(ret[r], NRT_SUCCESS);
    for (int t = 0; t < 2; ++t) {
      EXPECT_EQ(nrt_tensor_read(out[r][t], values, 0, sizeof(values)), NRT_SUCCESS);
      int wrong = 0;
      for (int e = 0; e < N; ++e) {
        float sum = 0;
        for (int k = 0; k < RANKS; ++k) sum += input_value(k, t, e);
        wrong += values[e] != sum;
      }
      EXPECT_EQ(wrong, 0);
    }
  }

  /* All-gather over the group {3, 1}: position 0 is rank 3. */
  uint32_t pair[2] = {3, 1};
  nrt_tensor_t *gathered[2];
  for (int p = 0; p < 2; ++p) {
    int r = (int)pair[p];
    nrt_cc_comm_t c = {pair, (uint32_t)p, 2, (uint32_t)r, RANKS, (uint32_t)r};
    gathered[p] = make_tensor(r, 2 * N * sizeof(float), NULL);
    nrt_tensor_list_t inputs = {&in[r][0], 1}, outputs = {&gathered[p], 1};
    nrt_cc_context_t *gather = NULL;
    EXPECT_EQ(nrta_cc_prepare(&c, &inputs, &outputs, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                              NRT_CC_ALLGATHER, &gather),
              NRT_SUCCESS);
    ret[p] = NRT_FAILURE;
    EXPECT_EQ(nrta_cc_schedule(&gather, 1, &ret[p], &seq[p]), NRT_SUCCESS);
  }
  for (int p = 0; p < 2; ++p) {
    EXPECT_TRUE(wait_for(seq[p]));
    EXPECT_EQ(ret[p], NRT_SUCCESS);
    float both[2 * N];
    EXPECT_EQ(nrt_tensor_read(gathered[p], both, 0, sizeof(both)), NRT_SUCCESS);
    int wrong = 0;
    for (int e = 0; e < N; ++e) {
      wrong += both[e] != input_value(3, 0, e);
      wrong += both[N + e] != input_value(1, 0, e);
    }
    EXPECT_EQ(wrong, 0);
  }

  /* Reduce-scatter (max) over all four: rank r gets block r of the element-wise maximum. */
  nrt_tensor_t *block[RANKS];
  for (int r = 0; r < RANKS; ++r) {
    block[r] = make_tensor(r, N / RANKS * sizeof(float), NULL);
    nrt_tensor_list_t inputs = {&in[r][1], 1}, outputs = {&block[r], 1};
    nrt_cc_context_t *scatter = NULL;
    EXPECT_EQ(nrta_cc_prepare(&comm[r], &inputs, &outputs, NRT_DTYPE_FLOAT32, NRT_OP_MAX,
                              NRT_CC_REDUCESCATTER, &scatter),
              NRT_SUCCESS);
    ret[r] = NRT_FAILURE;
    EXPECT_EQ(nrta_cc_schedule(&scatter, 0, &ret[r], &seq[r]), NRT_SUCCESS);
    EXPECT_EQ(NRTA_SEQ_GET_SEQ_NUM(seq[r]), 2); /* the second request of queue 0 */
  }
  for (int r = 0; r < RANKS; ++r) {
    EXPECT_TRUE(wait_for(seq[r]));
    EXPECT_EQ(ret[r], NRT_SUCCESS);
    float mine[N / RANKS];
    EXPECT_EQ(nrt_tensor_read(block[r], mine, 0, sizeof(mine)), NRT_SUCCESS);
    int wrong = 0;
    for (int e = 0; e < N / RANKS; ++e) {
      float best = input_value(0, 1, r * (N / RANKS) + e);
      for (int k = 1; k < RANKS; ++k) {
        float v = input_value(k, 1, r * (N / RANKS) + e);
        if (v > best) best = v;
      }
      wrong += mine[e] != best;
    }
    EXPECT_EQ(wrong, 0);
  }

  /* Errors. */
  nrt_tensor_list_t one_in = {&in[0][0], 1}, one_out = {&out[0][0], 1};
  nrt_tensor_list_t wrong_out = {&block[0], 1};
  nrt_cc_context_t *bad = NULL;
  EXPECT_EQ(nrta_cc_prepare(&comm[0], &one_in, &wrong_out, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                            NRT_CC_ALLREDUCE, &bad),
            NRT_INVALID); /* sizes */
  EXPECT_EQ(nrta_cc_prepare(&comm[0], &one_in, &one_out, NRT_DTYPE_FLOAT32, NRT_OP_FMA,
                            NRT_CC_ALLREDUCE, &bad),
            NRT_INVALID); /* not a reduction */
  EXPECT_EQ(nrta_cc_prepare(&comm[0], &one_in, &one_out, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                            (nrt_cc_op_type_t)7, &bad),
            NRT_INVALID);
  nrt_cc_comm_t misplaced = {all, 1, RANKS, 0, RANKS, 0}; /* position 1 is rank 1, not 0 */
  EXPECT_EQ(nrta_cc_prepare(&misplaced, &one_in, &one_out, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                            NRT_CC_ALLREDUCE, &bad),
            NRT_INVALID);
  nrt_tensor_t *t4 = make_tensor(4, N * sizeof(float), NULL);
  nrt_tensor_list_t in4 = {&t4, 1};
  nrt_cc_comm_t no_comm = {all, 0, RANKS, 0, RANKS, 4}; /* core 4 has no global comm */
  EXPECT_EQ(nrta_cc_prepare(&no_comm, &in4, &in4, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                            NRT_CC_ALLREDUCE, &bad),
            NRT_INVALID);
  EXPECT_TRUE(bad == NULL);
  nrt_cc_context_t *garbage = (nrt_cc_context_t *)&misplaced;
  NRT_STATUS r0 = NRT_FAILURE;
  nrta_seq_t s0 = 0;
  EXPECT_EQ(nrta_cc_schedule(&garbage, 0, &r0, &s0), NRT_INVALID_HANDLE);
  EXPECT_EQ(nrta_cc_schedule(&ctx[0], 3, &r0, &s0), NRT_INVALID);

  /* Rank 1 never joins a {0, 1} all-reduce: rank 0 times out, and its queue 2 is done for. */
  uint32_t duo[2] = {0, 1};
  nrt_cc_comm_t lonely = {duo, 0, 2, 0, RANKS, 0};
  nrt_cc_context_t *waiting = NULL;
  EXPECT_EQ(nrta_cc_prepare(&lonely, &one_in, &one_out, NRT_DTYPE_FLOAT32, NRT_OP_ADD,
                            NRT_CC_ALLREDUCE, &waiting),
            NRT_SUCCESS);
  EXPECT_EQ(nrta_cc_schedule(&waiting, 2, &r0, &s0), NRT_SUCCESS);
  EXPECT_TRUE(wait_for(s0));
  EXPECT_EQ(r0, NRT_TIMEOUT);
  EXPECT_EQ(nrta_cc_schedule(&waiting, 2, &r0, &s0), NRT_EXEC_UNIT_UNRECOVERABLE);
  EXPECT_EQ(nrta_cc_schedule(&ctx[0], 1, &r0, &s0), NRT_SUCCESS); /* another queue of core 0 */
  nrt_close(); /* completes queued requests: that one times out too (rank 1 never comes) */
  EXPECT_EQ(r0, NRT_TIMEOUT);
  C_CHECK_SUMMARY();
}
