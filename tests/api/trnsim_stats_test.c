/*
 * <trnsim/trnsim.h> from plain C11, against the installed tree: trnsim_get_version, and
 * trnsim_get_execution_stats around nrt_execute / nrt_execute_repeat of a sample matmul
 * (argument: PREFIX/share/trnsim/neff/matmul_bf16_128.neff; the runtime runs at LNC=1).
 * The statistics must be consistent with each other and with the model: busy time within the
 * duration, PE instructions and flops for a 128^3 matmul, DMA and HBM bytes covering the
 * tensors, execution counts that follow the calls. Last line: "N passed, M failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <trnsim/trnsim.h>

#include "c_check.h"
#include "c_files.h"

#define N 128
#define TENSOR_BYTES (N * N * 2) /* bf16 [128, 128] */

static void check_version(void) {
  char version[32], hash[64];
  EXPECT_EQ(trnsim_get_version(version, sizeof(version), hash, sizeof(hash)), NRT_SUCCESS);
  EXPECT_TRUE(strlen(version) > 0 && strchr(version, '.') != NULL);
  EXPECT_TRUE(strlen(hash) > 0);
  char tiny[2] = {'x', 'x'};
  EXPECT_EQ(trnsim_get_version(tiny, sizeof(tiny), NULL, 0), NRT_SUCCESS);
  EXPECT_EQ(tiny[1], '\0'); /* truncated, NUL-terminated */
  EXPECT_EQ(trnsim_get_version(NULL, 0, NULL, 0), NRT_INVALID);
  EXPECT_EQ(trnsim_get_version(NULL, 8, hash, sizeof(hash)), NRT_INVALID);
  EXPECT_EQ(trnsim_get_version(version, 0, NULL, 0), NRT_INVALID);
}

static void check_consistent(const trnsim_exec_stats_t *s, uint64_t executions) {
  EXPECT_EQ(s->struct_size, sizeof(trnsim_exec_stats_t));
  EXPECT_EQ(s->execution_count, executions);
  EXPECT_EQ(s->core_count, 1);
  EXPECT_TRUE(s->duration_ps > 0);
  EXPECT_EQ(s->duration_ns, s->duration_ps / 1000);
  const trnsim_core_stats_t *c = &s->cores[0];
  EXPECT_EQ(c->duration_ps, s->duration_ps);
  uint64_t engine_instructions = 0;
  for (int e = 0; e < TRNSIM_ENGINE_COUNT; ++e) {
    const trnsim_engine_stats_t *en = &c->engines[e];
    EXPECT_TRUE(en->busy_ps <= c->duration_ps);
    EXPECT_TRUE(en->utilization >= 0.0 && en->utilization <= 1.0);
    EXPECT_TRUE(en->busy_ps == 0 || en->instructions > 0);
    engine_instructions += en->instructions;
  }
  EXPECT_EQ(engine_instructions, c->instructions);
  const trnsim_engine_stats_t *pe = &c->engines[TRNSIM_ENGINE_PE];
  EXPECT_TRUE(pe->instructions > 0);
  EXPECT_TRUE(pe->busy_ps > 0);
  EXPECT_EQ(pe->flops, 2ull * N * N * N);
  EXPECT_EQ(c->engines[TRNSIM_ENGINE_DVE].flops, 0);
  /* Two inputs read from HBM, one output written, all through the DMA queues. */
  EXPECT_TRUE(s->hbm_read_bytes >= 2 * TENSOR_BYTES);
  EXPECT_TRUE(s->hbm_write_bytes >= TENSOR_BYTES);
  EXPECT_TRUE(s->dma_bytes >= 3 * TENSOR_BYTES);
  EXPECT_TRUE(s->dma_transfers > 0);
  EXPECT_TRUE(c->dma_queue_count > 0 && c->dma_queue_count <= TRNSIM_MAX_DMA_QUEUES);
  uint64_t queue_bytes = 0;
  for (uint32_t q = 0; q < c->dma_queue_count; ++q) {
    queue_bytes += c->dma_queues[q].bytes;
    EXPECT_TRUE(c->dma_queues[q].busy_ps <= c->duration_ps);
  }
  EXPECT_EQ(queue_bytes, s->dma_bytes);
  EXPECT_TRUE(s->simulator_events > 0);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s matmul_bf16_128.neff\n", argv[0]);
    return 2;
  }
  check_version(); /* before nrt_init too */

  trnsim_exec_stats_t stats;
  memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  nrt_model_t *model = NULL;
  EXPECT_EQ(trnsim_get_execution_stats(NULL, &stats), NRT_INVALID);

  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  check_version();
  size_t size = 0;
  void *neff = read_file(argv[1], &size);
  EXPECT_TRUE(neff != NULL);
  if (neff == NULL) C_CHECK_SUMMARY();
  EXPECT_EQ(nrt_load(neff, size, 0, -1, &model), NRT_SUCCESS);
  free(neff);
  if (model == NULL) C_CHECK_SUMMARY();

  /* Not executed yet, NULL stats, too small a struct: NRT_INVALID, stats untouched. */
  EXPECT_EQ(trnsim_get_execution_stats(model, &stats), NRT_INVALID);
  EXPECT_EQ(trnsim_get_execution_stats(model, NULL), NRT_INVALID);

  nrt_tensor_set_t *in = NULL, *out = NULL;
  nrt_tensor_t *a = NULL, *b = NULL, *c = NULL;
  EXPECT_EQ(nrt_allocate_tensor_set(&in), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(&out), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, TENSOR_BYTES, "a_t", &a),
            NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, TENSOR_BYTES, "b", &b),
            NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, TENSOR_BYTES, "c", &c),
            NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_memset(a, 0, 0x3f, TENSOR_BYTES), NRT_SUCCESS); /* bf16 0x3f3f ~ 0.75 */
  EXPECT_EQ(nrt_tensor_memset(b, 0, 0x3f, TENSOR_BYTES), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(in, "a_t", a), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(in, "b", b), NRT_SUCCESS);

  /* The output is missing: NRT_INVALID before anything runs. */
  EXPECT_EQ(nrt_execute(model, in, out), NRT_INVALID);
  EXPECT_EQ(trnsim_get_execution_stats(model, &stats), NRT_INVALID);

  EXPECT_EQ(nrt_add_tensor_to_tensor_set(out, "c", c), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(model, in, out), NRT_SUCCESS);
  stats.struct_size = sizeof(stats) - 1;
  EXPECT_EQ(trnsim_get_execution_stats(model, &stats), NRT_INVALID);
  stats.struct_size = sizeof(stats);
  EXPECT_EQ(trnsim_get_execution_stats(model, &stats), NRT_SUCCESS);
  check_consistent(&stats, 1);

  /* Every element of c is the same dot product: 128 * bf16(0.7461)^2, rounded to bf16. */
  uint16_t first = 0, last = 0;
  EXPECT_EQ(nrt_tensor_read(c, &first, 0, 2), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_read(c, &last, TENSOR_BYTES - 2, 2), NRT_SUCCESS);
  EXPECT_TRUE(first != 0 && first == last);

  EXPECT_EQ(nrt_execute_repeat(model, in, out, 2), NRT_SUCCESS);
  EXPECT_EQ(trnsim_get_execution_stats(model, &stats), NRT_SUCCESS);
  check_consistent(&stats, 3);
  EXPECT_EQ(nrt_execute_repeat(model, in, out, 0), NRT_INVALID);

  nrt_tensor_free(&a);
  nrt_tensor_free(&b);
  nrt_tensor_free(&c);
  nrt_destroy_tensor_set(&in);
  nrt_destroy_tensor_set(&out);
  EXPECT_EQ(nrt_unload(model), NRT_SUCCESS);
  EXPECT_EQ(trnsim_get_execution_stats(model, &stats), NRT_INVALID_HANDLE);
  nrt_close();
  EXPECT_EQ(trnsim_get_execution_stats(model, &stats), NRT_CLOSED);
  C_CHECK_SUMMARY();
}
