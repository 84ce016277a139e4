/*
 * One side of an async send/recv transfer between two processes of one neurond
 * (sendrecv_remote_test.py):
 *   sendrecv_peer send LNC PEER   this process owns absolute logical core LNC
 *   sendrecv_peer recv LNC PEER   (NEURON_RT_VISIBLE_CORES=LNC) and talks to PEER
 *   sendrecv_peer hang LNC PEER   connects to PEER, prints "hang: connected" once accepted,
 *                                 then sleeps until killed
 *   sendrecv_peer lost LNC PEER   accepts from PEER, posts a receive and expects it to fail
 *                                 with NRT_FAILURE (the peer's process died; the daemon closed
 *                                 its end)
 * The sender sends 4096 bytes of a pattern from a device tensor; the receiver checks every
 * byte. Each polls for at most 60 s. Prints "<side>: ok" and exits 0, or "<side>: FAIL ..." and
 * exits 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <nrt/nrt.h>
#include <nrt/nrt_async_sendrecv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kBytes = 4096, kPollSeconds = 60 };

static const char *side = "?";

static int fail(const char *what, NRT_STATUS status) {
  printf("%s: FAIL %s (status %d)\n", side, what, (int)status);
  return 1;
}

static void pause_briefly(void) {
  struct timespec pause = {0, 5 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

int main(int argc, char **argv) {
  if (argc != 4) return fail("usage: sendrecv_peer send|recv LNC PEER", NRT_INVALID);
  side = argv[1];
  const bool hanging = strcmp(side, "hang") == 0;
  const bool lost = strcmp(side, "lost") == 0;
  const bool sending = strcmp(side, "send") == 0 || hanging;
  const int lnc = atoi(argv[2]);
  const int peer = atoi(argv[3]);
  NRT_STATUS s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
  if (s != NRT_SUCCESS) return fail("nrt_init", s);
  s = nrt_async_sendrecv_init(lnc);
  if (s != NRT_SUCCESS) return fail("init", s);
  nrt_async_sendrecv_comm_t *comm = NULL;
  s = sending ? nrt_async_sendrecv_connect("127.0.0.1", peer, lnc, &comm)
              : nrt_async_sendrecv_accept("localhost", peer, lnc, &comm);
  if (s != NRT_SUCCESS) return fail("connect/accept", s);
  bool done = false;
  time_t start = time(NULL);
  while (!done) {
    s = nrt_async_sendrecv_test_comm(comm, &done);
    if (s != NRT_SUCCESS) return fail("test_comm", s);
    if (time(NULL) - start > kPollSeconds) return fail("the peer never connected", NRT_TIMEOUT);
    if (!done) pause_briefly();
  }
  if (hanging) {
    printf("hang: connected\n");
    fflush(stdout);
    for (;;) pause_briefly(); /* until killed */
  }
  nrt_tensor_t *tensor = NULL;
  s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kBytes, side, &tensor);
  if (s != NRT_SUCCESS) return fail("nrt_tensor_allocate", s);
  uint8_t bytes[kBytes];
  for (int i = 0; i < kBytes; ++i) bytes[i] = (uint8_t)(i * 13 + 5);
  if (sending) {
    s = nrt_tensor_write(tensor, bytes, 0, kBytes);
    if (s != NRT_SUCCESS) return fail("nrt_tensor_write", s);
  }
  nrt_async_sendrecv_request_t *request = NULL;
  s = sending ? nrt_async_sendrecv_send_tensor(tensor, 0, kBytes, comm, &request)
              : nrt_async_sendrecv_recv_tensor(tensor, 0, kBytes, comm, &request);
  if (s != NRT_SUCCESS) return fail("send/recv", s);
  size_t size = 0;
  done = false;
  start = time(NULL);
  while (!done) {
    s = nrt_async_sendrecv_test_request(request, &done, &size);
    if (lost && s == NRT_FAILURE) {
      printf("lost: ok (the receive failed with NRT_FAILURE)\n");
      return 0;
    }
    if (s != NRT_SUCCESS) return fail("test_request", s);
    if (lost && done) return fail("the receive succeeded from a dead peer", s);
    if (time(NULL) - start > kPollSeconds) return fail("the transfer never finished", NRT_TIMEOUT);
    if (!done) pause_briefly();
  }
  if (size != kBytes) return fail("bytes moved", (NRT_STATUS)size);
  if (!sending) {
    s = nrt_async_sendrecv_flush(lnc);
    if (s != NRT_SUCCESS) return fail("flush", s);
    uint8_t got[kBytes];
    s = nrt_tensor_read(tensor, got, 0, kBytes);
    if (s != NRT_SUCCESS) return fail("nrt_tensor_read", s);
    if (memcmp(got, bytes, kBytes) != 0) return fail("the received bytes differ", NRT_FAILURE);
  }
  s = nrt_async_sendrecv_close(lnc);
  if (s != NRT_SUCCESS) return fail("close", s);
  nrt_tensor_free(&tensor);
  nrt_close();
  printf("%s: ok (%zu bytes)\n", side, size);
  return 0;
}
