/*
 * Output completion counters (nrt_tensor_check_output_completion /
 * nrt_tensor_reset_output_completion) from plain C11 against the installed tree, with the
 * vector_add_fp32 sample (argument: its .neff), synchronous nrt_execute:
 *  - NULL is NRT_INVALID and a handle that is not a live tensor NRT_INVALID_HANDLE, before
 *    nrt_init too (the calls are not gated on the lifecycle);
 *  - each execution request adds 1 to its output tensors' count (nrt_execute_repeat too, once),
 *    never to its inputs'; a request refused before it runs adds nothing;
 *  - a count not reached within the timeout (microseconds) is NRT_TIMEOUT, 0 checks once;
 *  - reset starts the count again;
 *  - a thread waiting without a timeout returns when another thread's execution completes,
 *    and with NRT_INVALID_HANDLE when the tensor is freed under it.
 * Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <nrt/nrt.h>

#include "c_check.h"
#include "c_files.h"

#define ELEMENTS (512 * 1024)
#define BYTES (ELEMENTS * 4)

typedef struct {
  nrt_tensor_t *tensor;
  uint64_t expected;
  NRT_STATUS status;
} waiter_t;

static void *wait_for_completion(void *arg) {
  waiter_t *w = arg;
  w->status = nrt_tensor_check_output_completion(w->tensor, -1, w->expected);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    printf("usage: %s vector_add_fp32.neff\n", argv[0]);
    return 2;
  }
  int not_a_tensor = 0;
  EXPECT_EQ(nrt_tensor_check_output_completion(NULL, 0, 0), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_reset_output_completion(NULL), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_check_output_completion((nrt_tensor_t *)&not_a_tensor, 0, 0),
            NRT_INVALID_HANDLE);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_reset_output_completion((nrt_tensor_t *)&not_a_tensor),
            NRT_INVALID_HANDLE);

  size_t size = 0;
  void *neff = read_file(argv[1], &size);
  EXPECT_TRUE(neff != NULL);
  if (neff == NULL) C_CHECK_SUMMARY();
  nrt_model_t *model = NULL;
  EXPECT_EQ(nrt_load(neff, size, 0, 1, &model), NRT_SUCCESS);
  if (model == NULL) C_CHECK_SUMMARY();
  nrt_tensor_t *a = NULL, *b = NULL, *out = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, BYTES, "a", &a), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, BYTES, "b", &b), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, BYTES, "out", &out), NRT_SUCCESS);
  nrt_tensor_set_t *inputs = NULL, *outputs = NULL, *empty = NULL;
  EXPECT_EQ(nrt_allocate_tensor_set(&inputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(&outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(&empty), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(inputs, "a", a), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(inputs, "b", b), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(outputs, "out", out), NRT_SUCCESS);

  /* Nothing has completed into `out` yet. */
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 0), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 1), NRT_TIMEOUT);
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 2000, 1), NRT_TIMEOUT);

  EXPECT_EQ(nrt_execute(model, inputs, outputs), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 1), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_check_output_completion(a, 0, 1), NRT_TIMEOUT); /* an input */
  EXPECT_EQ(nrt_execute_repeat(model, inputs, outputs, 3), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 2), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 3), NRT_TIMEOUT);
  EXPECT_EQ(nrt_execute(model, empty, outputs), NRT_INVALID); /* refused: "a" is missing */
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 3), NRT_TIMEOUT);

  EXPECT_EQ(nrt_tensor_reset_output_completion(out), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_check_output_completion(out, 0, 1), NRT_TIMEOUT);

  /* A waiter without a timeout wakes when another thread's execution completes. */
  waiter_t waiter = {out, 1, NRT_FAILURE};
  pthread_t thread;
  EXPECT_EQ(pthread_create(&thread, NULL, wait_for_completion, &waiter), 0);
  usleep(50 * 1000);
  EXPECT_EQ(nrt_execute(model, inputs, outputs), NRT_SUCCESS);
  pthread_join(thread, NULL);
  EXPECT_EQ(waiter.status, NRT_SUCCESS);

  /* Freeing the tensor wakes a waiter, which reports the handle gone. */
  waiter_t orphan = {out, 100, NRT_FAILURE};
  EXPECT_EQ(pthread_create(&thread, NULL, wait_for_completion, &orphan), 0);
  usleep(50 * 1000);
  nrt_tensor_free(&out);
  pthread_join(thread, NULL);
  EXPECT_EQ(orphan.status, NRT_INVALID_HANDLE);

  nrt_destroy_tensor_set(&empty);
  nrt_destroy_tensor_set(&inputs);
  nrt_destroy_tensor_set(&outputs);
  nrt_tensor_free(&a);
  nrt_tensor_free(&b);
  nrt_unload(model);
  nrt_close();
  free(neff);
  C_CHECK_SUMMARY();
}
