/*
 * Implicit async mode (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=3, runtime 2.15-2.33) from
 * plain C11 against the installed tree, with the vector_add_fp32 sample (argument: its .neff):
 *  - nrt_execute returns once the execution is queued; the registered callback receives
 *    (params, model id, vnc, job id, status) for each, job ids rising by one;
 *  - with three executions in flight (the first held in its callback) a fourth nrt_execute is
 *    NRT_QUEUE_FULL;
 *  - nrt_tensor_read of an output an execution still uses blocks until it completes, then
 *    returns that execution's result (out = a + b);
 *  - nrt_tensor_check_output_completion waits for the queued executions into an output;
 *  - nrt_async_drain_queued_execs returns once everything queued has completed.
 * Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#include "c_check.h"
#include "c_files.h"

#define ELEMENTS (512 * 1024)
#define BYTES (ELEMENTS * 4)
#define MAX_CALLS 16

/* What the callback saw, and a gate that holds the first callback. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int gate_open = 0;
static int calls = 0;
static uint32_t seen_model[MAX_CALLS], seen_vnc[MAX_CALLS];
static uint64_t seen_job[MAX_CALLS];
static NRT_STATUS seen_status[MAX_CALLS];
static void *seen_params[MAX_CALLS];

static void on_complete(void *params, uint32_t model_id, uint32_t vnc, uint64_t job_id,
                        NRT_STATUS status) {
  pthread_mutex_lock(&lock);
  if (calls < MAX_CALLS) {
    seen_params[calls] = params;
    seen_model[calls] = model_id;
    seen_vnc[calls] = vnc;
    seen_job[calls] = job_id;
    seen_status[calls] = status;
  }
  ++calls;
  pthread_cond_broadcast(&changed);
  while (!gate_open) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
}

static void open_gate(void) {
  pthread_mutex_lock(&lock);
  gate_open = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

typedef struct {
  nrt_tensor_t *tensor;
  float *host;
  NRT_STATUS status;
  atomic_int finished;
} reader_t;

static void *read_output(void *arg) {
  reader_t *r = arg;
  r->status = nrt_tensor_read(r->tensor, r->host, 0, BYTES);
  atomic_store(&r->finished, 1);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    printf("usage: %s vector_add_fp32.neff\n", argv[0]);
    return 2;
  }
  EXPECT_EQ(nrt_register_async_exec_callback(on_complete, NULL), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  EXPECT_EQ(nrt_register_async_exec_callback(NULL, NULL), NRT_INVALID);
  int cookie = 42;
  EXPECT_EQ(nrt_register_async_exec_callback(on_complete, &cookie), NRT_SUCCESS);
  size_t size = 0;
  void *neff = read_file(argv[1], &size);
  EXPECT_TRUE(neff != NULL);
  if (neff == NULL) C_CHECK_SUMMARY();
  nrt_model_t *model = NULL;
  EXPECT_EQ(nrt_load(neff, size, 1, 1, &model), NRT_SUCCESS);
  if (model == NULL) C_CHECK_SUMMARY();

  nrt_tensor_t *a = NULL, *b = NULL, *out = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, BYTES, "a", &a), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, BYTES, "b", &b), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, BYTES, "out", &out), NRT_SUCCESS);
  float *host_a = malloc(BYTES), *host_b = malloc(BYTES), *host_out = malloc(BYTES);
  for (int e = 0; e < ELEMENTS; ++e) {
    host_a[e] = (float)(e % 321) * 0.75f;
    host_b[e] = (float)(e % 17) - 8.0f;
  }
  EXPECT_EQ(nrt_tensor_write(a, host_a, 0, BYTES), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_write(b, host_b, 0, BYTES), NRT_SUCCESS);
  nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
  EXPECT_EQ(nrt_allocate_tensor_set(&inputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(&outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(inputs, "a", a), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(inputs, "b", b), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(outputs, "out", out), NRT_SUCCESS);

  /* Three in flight: the first is held in its callback, so the fourth finds the core full. */
  EXPECT_EQ(nrt_execute(model, inputs, outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(model, inputs, outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(model, inputs, outputs), NRT_SUCCESS);
  pthread_mutex_lock(&lock);
  while (calls == 0) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  EXPECT_EQ(nrt_execute(model, inputs, outputs), NRT_QUEUE_FULL);
  /* A binding error is still reported by nrt_execute itself. */
  nrt_tensor_set_t *empty = NULL;
  EXPECT_EQ(nrt_allocate_tensor_set(&empty), NRT_SUCCESS);
  EXPECT_EQ(nrt_execute(model, empty, outputs), NRT_INVALID);

  /* Reading the output waits for the executions that use it. */
  reader_t reader = {out, host_out, NRT_FAILURE, 0};
  pthread_t thread;
  EXPECT_EQ(pthread_create(&thread, NULL, read_output, &reader), 0);
  usleep(200 * 1000);
  EXPECT_EQ(atomic_load(&reader.finished), 0); /* still blocked: execution 1 is not complete */
  open_gate();
  pthread_join(thread, NULL);
  EXPECT_EQ(reader.status, NRT_SUCCESS);
  int wrong = 0;
  for (int e = 0; e < ELEMENTS; ++e) wrong += host_out[e] != host_a[e] + host_b[e];
  EXPECT_EQ(wrong, 0);

  EXPECT_EQ(nrt_execute(model, inputs, outputs), NRT_SUCCESS);
  /* The output's completion count reaches the four queued executions (the refused ones do not
   * count); waiting for it returns once the last has finished. */
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 10 * 1000 * 1000, 4), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 5), NRT_TIMEOUT);
  EXPECT_EQ(nrt_async_drain_queued_execs(1), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_drain_queued_execs(99), NRT_INVALID);
  pthread_mutex_lock(&lock);
  EXPECT_EQ(calls, 4);
  const uint32_t model_id = seen_model[0]; /* the runtime's id of the model: never 0 */
  EXPECT_TRUE(model_id != 0);
  for (int i = 0; i < calls && i < MAX_CALLS; ++i) {
    EXPECT_TRUE(seen_params[i] == &cookie);
    EXPECT_EQ(seen_model[i], model_id);
    EXPECT_EQ(seen_vnc[i], 1);
    EXPECT_EQ(seen_job[i], (uint64_t)(i + 1));
    EXPECT_EQ(seen_status[i], NRT_SUCCESS);
  }
  pthread_mutex_unlock(&lock);

  nrt_destroy_tensor_set(&empty);
  nrt_destroy_tensor_set(&inputs);
  nrt_destroy_tensor_set(&outputs);
  nrt_tensor_free(&a);
  nrt_tensor_free(&b);
  nrt_tensor_free(&out);
  nrt_unload(model);
  nrt_close();
  free(host_a);
  free(host_b);
  free(host_out);
  free(neff);
  C_CHECK_SUMMARY();
}
