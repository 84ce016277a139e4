/*
 * Async send/recv (nrt/nrt_async_sendrecv.h) through the installed libnrt, in one process:
 * logical cores 0..3 of a trn2.3xlarge at LNC=2 talk to each other by sequential polling.
 *   sendrecv_test              NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED=1: transfers,
 *                              pairing order, every error status, limits, close rules
 *   sendrecv_test --disabled   the variable unset: init fails, the getters still answer
 *   sendrecv_test --timeout    NEURON_RT_EXEC_TIMEOUT=1: an unanswered connect times out
 */
#define _POSIX_C_SOURCE 200809L

#include <nrt/nrt.h>
#include <nrt/nrt_async_sendrecv.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "c_check.h"

enum { kBytes = 4096 };

static nrt_tensor_t *device_tensor(int vnc, const char *name) {
  nrt_tensor_t *tensor = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, kBytes, name, &tensor),
            NRT_SUCCESS);
  return tensor;
}

static void fill_pattern(nrt_tensor_t *tensor, uint8_t seed) {
  uint8_t bytes[kBytes];
  for (int i = 0; i < kBytes; ++i) bytes[i] = (uint8_t)(seed + i * 7);
  EXPECT_EQ(nrt_tensor_write(tensor, bytes, 0, kBytes), NRT_SUCCESS);
}

/* A connected pair: `from` sends to `to`. */
static void connect_pair(int from, int to, nrt_async_sendrecv_comm_t **send,
                         nrt_async_sendrecv_comm_t **recv) {
  bool done = true;
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", to, from, send), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_test_comm(*send, &done), NRT_SUCCESS);
  EXPECT_EQ(done, false); /* the peer has not accepted yet */
  EXPECT_EQ(nrt_async_sendrecv_accept("localhost", from, to, recv), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_test_comm(*send, &done), NRT_SUCCESS);
  EXPECT_EQ(done, true);
  done = false;
  EXPECT_EQ(nrt_async_sendrecv_test_comm(*recv, &done), NRT_SUCCESS);
  EXPECT_EQ(done, true);
}

/* Tests `request` once it must be done: returns the status and checks the size on success. */
static NRT_STATUS finish(nrt_async_sendrecv_request_t *request, size_t want_size) {
  bool done = false;
  size_t size = 12345;
  NRT_STATUS status = nrt_async_sendrecv_test_request(request, &done, &size);
  if (status == NRT_SUCCESS) {
    EXPECT_EQ(done, true);
    EXPECT_EQ(size, want_size);
  }
  return status;
}

static void getters(void) {
  int num = 0;
  EXPECT_EQ(nrt_async_sendrecv_get_max_num_communicators_per_lnc(&num), NRT_SUCCESS);
  EXPECT_EQ(num, 16);
  EXPECT_EQ(nrt_async_sendrecv_get_max_num_pending_request(&num), NRT_SUCCESS);
  EXPECT_EQ(num, 64);
  EXPECT_EQ(nrt_async_sendrecv_get_max_num_communicators_per_lnc(NULL), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_get_max_num_pending_request(NULL), NRT_INVALID);
}

static void transfer_and_errors(void) {
  nrt_async_sendrecv_comm_t *send = NULL, *recv = NULL;
  nrt_async_sendrecv_request_t *s = NULL, *r = NULL;
  bool done = false;
  size_t size = 0;

  /* Lifecycle and core checks. */
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 1, 0, &send), NRT_INVALID); /* no init */
  EXPECT_EQ(nrt_async_sendrecv_flush(0), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_close(0), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_INVALID); /* twice */
  EXPECT_EQ(nrt_async_sendrecv_init(1), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_init(4), NRT_INVALID); /* not a core of this process */
  EXPECT_EQ(nrt_async_sendrecv_init(-1), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_flush(0), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_flush(9), NRT_INVALID);

  /* Connect arguments. */
  EXPECT_EQ(nrt_async_sendrecv_connect(NULL, 1, 0, &send), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 1, 0, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_accept(NULL, 0, 1, &recv), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_connect("192.0.2.7", 1, 0, &send), NRT_FAILURE); /* other host */
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 64, 0, &send), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", -2, 0, &send), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 0, 0, &send), NRT_INVALID); /* itself */
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 1, 7, &send), NRT_INVALID); /* not ours */

  connect_pair(0, 1, &send, &recv);
  EXPECT_EQ(nrt_async_sendrecv_test_comm(NULL, &done), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_test_comm(send, NULL), NRT_INVALID);
  int not_a_comm = 0;
  EXPECT_EQ(nrt_async_sendrecv_test_comm((nrt_async_sendrecv_comm_t *)&not_a_comm, &done),
            NRT_INVALID_HANDLE);

  /* A transfer from core 0's HBM to core 1's: bytes 1024..3071 of src land at 0..2047. */
  nrt_tensor_t *src = device_tensor(0, "src");
  nrt_tensor_t *dst = device_tensor(1, "dst");
  fill_pattern(src, 3);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 1024, 2048, send, &s), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_test_request(s, &done, &size), NRT_SUCCESS);
  EXPECT_EQ(done, false); /* no receive yet */
  EXPECT_EQ(nrt_async_sendrecv_recv_tensor(dst, 0, 2048, recv, &r), NRT_SUCCESS);
  EXPECT_EQ(finish(r, 2048), NRT_SUCCESS);
  EXPECT_EQ(finish(s, 2048), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_flush(1), NRT_SUCCESS);
  uint8_t got[kBytes];
  EXPECT_EQ(nrt_tensor_read(dst, got, 0, kBytes), NRT_SUCCESS);
  int mismatches = 0;
  for (int i = 0; i < 2048; ++i) mismatches += got[i] != (uint8_t)(3 + (1024 + i) * 7);
  for (int i = 2048; i < kBytes; ++i) mismatches += got[i] != 0;
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(nrt_async_sendrecv_test_request(s, &done, &size), NRT_INVALID_HANDLE); /* done */

  /* A posted send pins its tensor's memory: freed before the receive is posted, the bytes
   * sent are still the ones it had, not those of a tensor allocated after the free (which
   * would take the freed range if the free released it at once). */
  nrt_tensor_t *pinned = device_tensor(0, "pinned");
  fill_pattern(pinned, 11);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(pinned, 0, 2048, send, &s), NRT_SUCCESS);
  nrt_tensor_free(&pinned);
  EXPECT_TRUE(pinned == NULL);
  nrt_tensor_t *after = device_tensor(0, "after");
  fill_pattern(after, 99);
  EXPECT_EQ(nrt_async_sendrecv_recv_tensor(dst, 0, 2048, recv, &r), NRT_SUCCESS);
  EXPECT_EQ(finish(r, 2048), NRT_SUCCESS);
  EXPECT_EQ(finish(s, 2048), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_read(dst, got, 0, kBytes), NRT_SUCCESS);
  mismatches = 0;
  for (int i = 0; i < 2048; ++i) mismatches += got[i] != (uint8_t)(11 + i * 7);
  EXPECT_EQ(mismatches, 0);
  nrt_tensor_free(&after);

  /* Transfer arguments. */
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(NULL, 0, 8, send, &s), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 8, NULL, &s), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 8, send, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 4000, 200, send, &s), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 8,
                                           (nrt_async_sendrecv_comm_t *)&not_a_comm, &s),
            NRT_INVALID_HANDLE);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor((nrt_tensor_t *)&not_a_comm, 0, 8, send, &s),
            NRT_INVALID_HANDLE);
  nrt_tensor_t *host = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, 0, 64, "host", &host), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(host, 0, 8, send, &s), NRT_INVALID);
  nrt_tensor_free(&host);
  EXPECT_EQ(nrt_async_sendrecv_test_request(NULL, &done, &size), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_test_request((nrt_async_sendrecv_request_t *)&not_a_comm, &done,
                                            &size),
            NRT_INVALID_HANDLE);

  /* A send of 16 bytes meets a receive of 32: both requests fail with NRT_INVALID. */
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 16, send, &s), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_recv_tensor(dst, 0, 32, recv, &r), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_test_request(NULL, &done, &size), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_test_request(r, NULL, &size), NRT_INVALID);
  EXPECT_EQ(nrt_async_sendrecv_test_request(r, &done, NULL), NRT_INVALID);
  EXPECT_EQ(finish(r, 0), NRT_INVALID);
  EXPECT_EQ(finish(s, 0), NRT_INVALID);

  /* A comm that has not tested connected refuses transfers. */
  nrt_async_sendrecv_comm_t *second = NULL, *second_recv = NULL;
  EXPECT_EQ(nrt_async_sendrecv_connect("::1", 1, 0, &second), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 8, second, &s), NRT_INVALID);

  /* Close: refused while `second` is unconnected, then while a send is in flight. */
  EXPECT_EQ(nrt_async_sendrecv_close(0), NRT_FAILURE);
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_FAILURE); /* the last close failed */
  EXPECT_EQ(nrt_async_sendrecv_accept("127.0.0.1", 0, 1, &second_recv), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_test_comm(second, &done), NRT_SUCCESS);
  EXPECT_EQ(done, true);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 64, send, &s), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_close(0), NRT_FAILURE);
  EXPECT_EQ(nrt_async_sendrecv_recv_tensor(dst, 64, 64, recv, &r), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_close(0), NRT_SUCCESS); /* s is done, untested: dropped */
  EXPECT_EQ(nrt_async_sendrecv_test_request(s, &done, &size), NRT_INVALID_HANDLE);
  EXPECT_EQ(nrt_async_sendrecv_test_comm(send, &done), NRT_INVALID_HANDLE);
  EXPECT_EQ(finish(r, 64), NRT_SUCCESS); /* the peer's request is its own */
  /* The peer's comm outlives the closed end; its next receive fails at once. */
  EXPECT_EQ(nrt_async_sendrecv_recv_tensor(dst, 0, 8, recv, &r), NRT_SUCCESS);
  EXPECT_EQ(finish(r, 0), NRT_FAILURE);
  EXPECT_EQ(nrt_async_sendrecv_close(1), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_test_comm(recv, &done), NRT_INVALID_HANDLE);
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_SUCCESS); /* again after a good close */
  EXPECT_EQ(nrt_async_sendrecv_close(0), NRT_SUCCESS);
  nrt_tensor_free(&src);
  nrt_tensor_free(&dst);
}

/* Comm and pending-request limits on cores 2 -> 3; pairing by order on one route. */
static void limits_and_order(void) {
  nrt_async_sendrecv_comm_t *sends[17] = {0}, *recvs[16] = {0};
  nrt_async_sendrecv_request_t *requests[65] = {0}, *r = NULL;
  bool done = false;
  EXPECT_EQ(nrt_async_sendrecv_init(2), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_init(3), NRT_SUCCESS);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 3, 2, &sends[i]), NRT_SUCCESS);
  }
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 3, 2, &sends[16]), NRT_RESOURCE);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(nrt_async_sendrecv_accept("127.0.0.1", 2, 3, &recvs[i]), NRT_SUCCESS);
  }
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(nrt_async_sendrecv_test_comm(sends[i], &done), NRT_SUCCESS);
    EXPECT_EQ(nrt_async_sendrecv_test_comm(recvs[i], &done), NRT_SUCCESS);
  }
  nrt_tensor_t *src = device_tensor(2, "src2");
  nrt_tensor_t *dst = device_tensor(3, "dst3");
  fill_pattern(src, 11);
  /* The 5th accept pairs with the 5th connect: a receive on recvs[4] takes nothing. */
  EXPECT_EQ(nrt_async_sendrecv_recv_tensor(dst, 0, 8, recvs[4], &r), NRT_SUCCESS);
  size_t size = 0;
  EXPECT_EQ(nrt_async_sendrecv_test_request(r, &done, &size), NRT_SUCCESS);
  EXPECT_EQ(done, false);
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 8, sends[4], &requests[64]), NRT_SUCCESS);
  EXPECT_EQ(finish(r, 8), NRT_SUCCESS);
  EXPECT_EQ(finish(requests[64], 8), NRT_SUCCESS);
  /* 64 sends of 8 bytes on comm 5, each from its own offset; the 65th is over the limit. */
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, (size_t)i * 8, 8, sends[5], &requests[i]),
              NRT_SUCCESS);
  }
  EXPECT_EQ(nrt_async_sendrecv_send_tensor(src, 0, 8, sends[5], &requests[64]), NRT_RESOURCE);
  /* recvs[5] takes the 64 sends in posting order, in reverse places of dst. */
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(nrt_async_sendrecv_recv_tensor(dst, (size_t)(63 - i) * 8, 8, recvs[5], &r),
              NRT_SUCCESS);
    EXPECT_EQ(finish(r, 8), NRT_SUCCESS);
    EXPECT_EQ(finish(requests[i], 8), NRT_SUCCESS);
  }
  uint8_t got[512];
  EXPECT_EQ(nrt_tensor_read(dst, got, 0, sizeof(got)), NRT_SUCCESS);
  int mismatches = 0;
  for (int i = 0; i < 64; ++i) {
    for (int b = 0; b < 8; ++b) {
      mismatches += got[(63 - i) * 8 + b] != (uint8_t)(11 + (i * 8 + b) * 7);
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(nrt_async_sendrecv_close(2), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_close(3), NRT_SUCCESS);
  nrt_tensor_free(&src);
  nrt_tensor_free(&dst);
}

static int run_enabled(void) {
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  getters();
  transfer_and_errors();
  limits_and_order();
  /* nrt_close with a core still initialised and a comm unconnected closes it anyway. */
  nrt_async_sendrecv_comm_t *left = NULL;
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 1, 0, &left), NRT_SUCCESS);
  nrt_close();
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_CLOSED);
  C_CHECK_SUMMARY();
}

static int run_disabled(void) {
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  getters();
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_FAILURE);
  nrt_async_sendrecv_comm_t *send = NULL;
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 1, 0, &send), NRT_INVALID); /* no init */
  nrt_close();
  C_CHECK_SUMMARY();
}

static int run_timeout(void) {
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  EXPECT_EQ(nrt_async_sendrecv_init(0), NRT_SUCCESS);
  nrt_async_sendrecv_comm_t *send = NULL;
  EXPECT_EQ(nrt_async_sendrecv_connect("127.0.0.1", 1, 0, &send), NRT_SUCCESS);
  bool done = false;
  NRT_STATUS status = NRT_SUCCESS;
  time_t start = time(NULL);
  while (status == NRT_SUCCESS && time(NULL) - start < 10) {
    status = nrt_async_sendrecv_test_comm(send, &done);
    EXPECT_EQ(done, false);
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  EXPECT_EQ(status, NRT_TIMEOUT);
  EXPECT_TRUE(time(NULL) - start >= 1);
  EXPECT_EQ(nrt_async_sendrecv_close(0), NRT_FAILURE); /* still unconnected */
  nrt_close();
  C_CHECK_SUMMARY();
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--disabled") == 0) return run_disabled();
  if (argc > 1 && strcmp(argv[1], "--timeout") == 0) return run_timeout();
  return run_enabled();
}
