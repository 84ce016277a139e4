/*
 * trnsim — conformance test of the installed libnrt, written as a plain C11 client would be:
 *   gcc -std=c11 c_api_test.c -I PREFIX/include -L PREFIX/lib -lnrt
 * run_c_api_test.sh builds it against the installed tree and runs it under several
 * instance types and LNC settings, passing the answers AWS's runtime gives for each:
 *   c_api_test <total_vnc> <visible_vnc> <family> <size> <lnc>
 * Last line: "N passed, M failed"; exit status 0 only when M is 0.
 */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid */

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_status.h>
#include <nrt/nrt_version.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "c_check.h"

static const uint64_t kGiB = 1ull << 30;

/* Instance queries answer the same before and after nrt_init. */
static void test_instance_queries(uint32_t total, uint32_t visible, uint32_t family,
                                  uint32_t size) {
  uint32_t n = 0;
  EXPECT_EQ(nrt_get_total_vnc_count(&n), NRT_SUCCESS);
  EXPECT_EQ(n, total);
  EXPECT_EQ(nrt_get_total_nc_count(&n), NRT_SUCCESS);
  EXPECT_EQ(n, total);
  EXPECT_EQ(nrt_get_visible_vnc_count(&n), NRT_SUCCESS);
  EXPECT_EQ(n, visible);
  EXPECT_EQ(nrt_get_visible_nc_count(&n), NRT_SUCCESS);
  EXPECT_EQ(n, visible);
  EXPECT_EQ(nrt_get_total_vnc_count(NULL), NRT_INVALID);

  nrt_instance_info_t info;
  memset(&info, 0xAB, sizeof(info));
  EXPECT_EQ(nrt_get_instance_info(&info, sizeof(info)), NRT_SUCCESS);
  EXPECT_EQ(info.family, family);
  EXPECT_EQ(info.size, size);
  EXPECT_TRUE(memchr(info.arch_name, '\0', sizeof(info.arch_name)) != NULL);
  EXPECT_TRUE(strlen(info.arch_name) > 0);
  /* An old caller's 8-byte struct: nothing past it is written. */
  unsigned char old[16];
  memset(old, 0xCD, sizeof(old));
  EXPECT_EQ(nrt_get_instance_info((nrt_instance_info_t *)old, 8), NRT_SUCCESS);
  EXPECT_EQ(old[8], 0xCD);
  EXPECT_EQ(old[15], 0xCD);
  EXPECT_EQ(nrt_get_instance_info(NULL, sizeof(info)), NRT_INVALID);

  nrt_version_t ver;
  memset(&ver, 0, sizeof(ver));
  EXPECT_EQ(nrt_get_version(&ver, sizeof(ver)), NRT_SUCCESS);
  EXPECT_EQ(ver.rt_major, 2);
  EXPECT_TRUE(strncmp(ver.rt_detail, "libnrt version 2.", 17) == 0);
  EXPECT_TRUE(strlen(ver.git_hash) > 0);
  EXPECT_EQ(nrt_get_version(&ver, 100), NRT_FAILURE);
  EXPECT_EQ(nrt_get_version(NULL, sizeof(ver)), NRT_INVALID);

  uint32_t host_id = 99;
  EXPECT_EQ(nrt_host_device_id_get(0, &host_id), NRT_SUCCESS);
  EXPECT_EQ(host_id, 0);
  EXPECT_EQ(nrt_host_device_id_get(-1, &host_id), NRT_INVALID);
  EXPECT_EQ(nrt_host_device_id_get(4096, &host_id), NRT_INVALID);
  uint32_t map[64], count = 64;
  EXPECT_EQ(nrt_host_device_id_rid_map_get(&count, map), NRT_SUCCESS);
  EXPECT_TRUE(count >= 1 && count <= 64);
  count = 0;
  EXPECT_EQ(nrt_host_device_id_rid_map_get(&count, map), NRT_INVALID);
}

static void test_status_names(void) {
  EXPECT_TRUE(strcmp(nrt_get_status_as_str(NRT_SUCCESS), "NRT_SUCCESS") == 0);
  EXPECT_TRUE(strcmp(nrt_get_status_as_str(NRT_INVALID), "NRT_INVALID") == 0);
  EXPECT_TRUE(strcmp(nrt_get_status_as_str(NRT_EXEC_HW_ERR_HBM_UE),
                     "NRT_EXEC_HW_ERR_HBM_UE") == 0);
  EXPECT_TRUE(nrt_get_status_as_str((NRT_STATUS)12345) != NULL);
}

static void test_before_init(void) {
  nrt_tensor_t *t = NULL;
  nrt_tensor_set_t *set = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "t", &t), NRT_UNINITIALIZED);
  EXPECT_TRUE(t == NULL);
  EXPECT_EQ(nrt_allocate_tensor_set(&set), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_tensor_get_size(NULL), 0);
  EXPECT_EQ(nrt_init((nrt_framework_type_t)0, "", ""), NRT_INVALID);
  EXPECT_EQ(nrt_init((nrt_framework_type_t)77, "", ""), NRT_INVALID);
}

static void test_device_tensors(uint32_t visible, uint32_t lnc) {
  enum { N = 4096 };
  static unsigned char out[N], in[N];
  for (int i = 0; i < N; ++i) out[i] = (unsigned char)(i * 7 + 3);

  nrt_tensor_t *a = NULL, *b = NULL;
  uint32_t last = visible - 1;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, N, "a", &a), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, N, "b", &b), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_get_size(a), N);

  /* A fresh device tensor reads as zero; a write round-trips; a copy moves it. */
  memset(in, 0xFF, N);
  EXPECT_EQ(nrt_tensor_read(a, in, 0, N), NRT_SUCCESS);
  EXPECT_EQ(in[0] | in[N / 2] | in[N - 1], 0);
  EXPECT_EQ(nrt_tensor_write(a, out, 0, N), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_copy(a, 0, b, 0, N), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_read(b, in, 0, N), NRT_SUCCESS);
  EXPECT_EQ(memcmp(in, out, N), 0);
  /* Partial, offset read. */
  EXPECT_EQ(nrt_tensor_read(b, in, 100, 10), NRT_SUCCESS);
  EXPECT_EQ(memcmp(in, out + 100, 10), 0);

  /* Out of range: nothing is written, nothing is read. */
  EXPECT_EQ(nrt_tensor_write(a, in, N - 8, 16), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_write(a, in, SIZE_MAX, 2), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_read(a, in, N, 1), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_read(a, in, 1, SIZE_MAX), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_read(a, in, 0, N), NRT_SUCCESS);
  EXPECT_EQ(memcmp(in, out, N), 0);
  EXPECT_EQ(nrt_tensor_read(a, NULL, 0, 4), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_write(a, NULL, 0, 4), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_read(NULL, in, 0, 4), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_copy(a, 0, b, N - 1, 2), NRT_INVALID);

  /* memset uses the low byte of value. */
  EXPECT_EQ(nrt_tensor_memset(a, 16, 0x15A, 32), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_read(a, in, 0, 64), NRT_SUCCESS);
  EXPECT_EQ(in[15], out[15]);
  EXPECT_EQ(in[16], 0x5A);
  EXPECT_EQ(in[47], 0x5A);
  EXPECT_EQ(in[48], out[48]);
  EXPECT_EQ(nrt_tensor_memset(a, N, 0, 1), NRT_INVALID);

  /* Device allocation info: which HBM stack serves the logical core. */
  nrt_tensor_device_allocation_info_t info;
  EXPECT_EQ(nrt_tensor_get_device_allocation_info(a, &info), NRT_SUCCESS);
  EXPECT_EQ(info.hbm_index, 0);
  EXPECT_TRUE(info.size >= N);
  EXPECT_EQ(nrt_tensor_get_device_allocation_info(a, NULL), NRT_INVALID);
  nrt_tensor_t *far = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, (int)last, 64, "far", &far),
            NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_get_device_allocation_info(far, &info), NRT_SUCCESS);
  /* Logical core k uses physical cores k*lnc.., whose HBM stack is (physical % 8) / 2. */
  EXPECT_EQ(info.hbm_index, ((last * lnc) % 8) / 2);
  if (info.hbm_index != 0) {
    EXPECT_EQ(nrt_tensor_copy(a, 0, far, 0, 64), NRT_INVALID);  /* different HBM */
  }
  nrt_tensor_free(&far);
  EXPECT_TRUE(far == NULL);

  /* Slices alias their source and survive it. */
  nrt_tensor_t *slice = NULL;
  EXPECT_EQ(nrt_tensor_allocate_slice(b, 1024, 256, "slice", &slice), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_get_size(slice), 256);
  EXPECT_EQ(nrt_tensor_allocate_slice(b, N - 10, 11, "bad", &far), NRT_INVALID);
  nrt_tensor_free(&b);
  EXPECT_EQ(nrt_tensor_read(slice, in, 0, 256), NRT_SUCCESS);
  EXPECT_EQ(memcmp(in, out + 1024, 256), 0);
  nrt_tensor_free(&slice);

  /* Bad vnc, bad placement, NULL out-pointer. */
  nrt_tensor_t *t = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, (int)visible, 64, "x", &t),
            NRT_INVALID);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, -1, 64, "x", &t), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_allocate((nrt_tensor_placement_t)9, 0, 64, "x", &t), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "x", NULL), NRT_INVALID);
  EXPECT_TRUE(t == NULL);

  /* A freed handle is refused, not dereferenced. */
  nrt_tensor_t *stale = a;
  nrt_tensor_free(&a);
  EXPECT_TRUE(a == NULL);
  EXPECT_EQ(nrt_tensor_read(stale, in, 0, 4), NRT_INVALID_HANDLE);
  nrt_tensor_free(&a); /* freeing NULL again is harmless */
}

static void test_host_and_virtual_tensors(void) {
  unsigned char buf[256], in[256];
  for (int i = 0; i < 256; ++i) buf[i] = (unsigned char)(255 - i);

  nrt_tensor_t *h = NULL, *v = NULL, *e = NULL, *d = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 256, "h", &h), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_VIRTUAL, -1, 256, "v", &v), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_write(h, buf, 0, 256), NRT_SUCCESS);
  EXPECT_TRUE(nrt_tensor_get_va(h) != NULL);
  EXPECT_EQ(memcmp(nrt_tensor_get_va(h), buf, 256), 0);
  nrt_tensor_device_allocation_info_t info;
  EXPECT_EQ(nrt_tensor_get_device_allocation_info(h, &info), NRT_INVALID);

  /* host -> device -> virtual */
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 256, "d", &d), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_copy(h, 0, d, 0, 256), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_copy(d, 0, v, 0, 256), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_read(v, in, 0, 256), NRT_SUCCESS);
  EXPECT_EQ(memcmp(in, buf, 256), 0);

  /* Empty tensor: no storage until a buffer is attached; the buffer is never freed by us. */
  EXPECT_EQ(nrt_tensor_allocate_empty("e", &e), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_get_size(e), 0);
  EXPECT_EQ(nrt_tensor_read(e, in, 0, 1), NRT_INVALID);
  static unsigned char user[128];
  EXPECT_EQ(nrt_tensor_attach_buffer(e, NULL, 128), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_attach_buffer(e, user, sizeof(user)), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_get_size(e), 128);
  EXPECT_TRUE(nrt_tensor_get_va(e) == (void *)user);
  EXPECT_EQ(nrt_tensor_copy(d, 0, e, 0, 128), NRT_SUCCESS);
  EXPECT_EQ(memcmp(user, buf, 128), 0);
  EXPECT_EQ(nrt_tensor_memset(e, 0, 7, 128), NRT_SUCCESS);
  EXPECT_EQ(user[127], 7);

  /* Batches: validated as a whole before any byte moves. */
  unsigned char one[4] = {1, 2, 3, 4}, two[4] = {5, 6, 7, 8};
  nrt_tensor_batch_op_t good_ops[2] = {{0, 4, one}, {8, 4, two}};
  nrt_tensor_batch_op_t bad_op[1] = {{254, 4, two}};
  nrt_tensor_batch_t batches[2] = {{d, good_ops, 2}, {v, bad_op, 1}};
  EXPECT_EQ(nrt_tensor_write_batch(batches, 2, false), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_read(d, in, 0, 12), NRT_SUCCESS);
  EXPECT_EQ(memcmp(in, buf, 12), 0); /* the first batch did not land either */
  EXPECT_EQ(nrt_tensor_write_batch(batches, 1, false), NRT_SUCCESS);
  unsigned char r1[4], r2[4];
  nrt_tensor_batch_op_t read_ops[2] = {{0, 4, r1}, {8, 4, r2}};
  nrt_tensor_batch_t read_batch = {d, read_ops, 2};
  EXPECT_EQ(nrt_tensor_read_batch(&read_batch, 1, false), NRT_SUCCESS);
  EXPECT_EQ(memcmp(r1, one, 4), 0);
  EXPECT_EQ(memcmp(r2, two, 4), 0);
  EXPECT_EQ(nrt_tensor_read_batch(NULL, 1, false), NRT_INVALID);

  nrt_tensor_free(&h);
  nrt_tensor_free(&v);
  nrt_tensor_free(&e);
  nrt_tensor_free(&d);
  EXPECT_EQ(user[0], 7); /* still ours to read */
}

static void test_tensor_sets(void) {
  nrt_tensor_set_t *set = NULL;
  nrt_tensor_t *x = NULL, *y = NULL, *got = NULL;
  EXPECT_EQ(nrt_allocate_tensor_set(&set), NRT_SUCCESS);
  EXPECT_EQ(nrt_allocate_tensor_set(NULL), NRT_INVALID);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "x", &x), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "y", &y), NRT_SUCCESS);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(set, "input0", x), NRT_SUCCESS);
  EXPECT_EQ(nrt_get_tensor_from_tensor_set(set, "input0", &got), NRT_SUCCESS);
  EXPECT_TRUE(got == x);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(set, "input0", y), NRT_SUCCESS); /* replaces */
  EXPECT_EQ(nrt_get_tensor_from_tensor_set(set, "input0", &got), NRT_SUCCESS);
  EXPECT_TRUE(got == y);
  nrt_tensor_t *untouched = (nrt_tensor_t *)0x1;
  EXPECT_EQ(nrt_get_tensor_from_tensor_set(set, "missing", &untouched), NRT_FAILURE);
  EXPECT_TRUE(untouched == (nrt_tensor_t *)0x1);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(set, NULL, x), NRT_INVALID);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(NULL, "a", x), NRT_INVALID);
  nrt_tensor_set_t *stale = set;
  nrt_destroy_tensor_set(&set);
  EXPECT_TRUE(set == NULL);
  EXPECT_EQ(nrt_add_tensor_to_tensor_set(stale, "a", x), NRT_INVALID_HANDLE);
  nrt_destroy_tensor_set(&set); /* NULL: harmless */
  nrt_tensor_free(&x);
  nrt_tensor_free(&y);
}

static void test_memory_accounting(uint32_t visible) {
  nrt_vnc_memory_stats_t before, after;
  size_t written = 0;
  EXPECT_EQ(nrt_get_vnc_memory_stats(0, &before, sizeof(before), &written), NRT_SUCCESS);
  EXPECT_EQ(written, sizeof(before));
  EXPECT_TRUE(before.bytes_limit >= 24 * kGiB);
  nrt_tensor_t *t = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1 << 20, "m", &t), NRT_SUCCESS);
  EXPECT_EQ(nrt_get_vnc_memory_stats(0, &after, sizeof(after), &written), NRT_SUCCESS);
  EXPECT_EQ(after.bytes_used - before.bytes_used, 1 << 20);
  nrt_tensor_free(&t);
  EXPECT_EQ(nrt_get_vnc_memory_stats(0, &after, sizeof(after), &written), NRT_SUCCESS);
  EXPECT_EQ(after.bytes_used, before.bytes_used);
  /* Version-tolerant: a smaller caller struct gets only what it holds. */
  EXPECT_EQ(nrt_get_vnc_memory_stats(0, &after, 8, &written), NRT_SUCCESS);
  EXPECT_EQ(written, 8);
  EXPECT_EQ(nrt_get_vnc_memory_stats(visible, &after, sizeof(after), &written), NRT_INVALID);
  EXPECT_EQ(nrt_get_vnc_memory_stats(0, NULL, sizeof(after), &written), NRT_INVALID);

  /* Exhausting the HBM stack: lazily backed, so this costs no host memory. */
  nrt_tensor_t *big[8] = {0};
  NRT_STATUS last = NRT_SUCCESS;
  int made = 0;
  while (made < 8 && (last = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 10 * kGiB,
                                                 "big", &big[made])) == NRT_SUCCESS) {
    ++made;
  }
  EXPECT_EQ(last, NRT_RESOURCE);
  EXPECT_TRUE(made >= 1 && made < 8);
  for (int i = 0; i < made; ++i) nrt_tensor_free(&big[i]);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 10 * kGiB, "again", &big[0]),
            NRT_SUCCESS);
  nrt_tensor_free(&big[0]);
}

/* A child forked from an initialised process cannot use the runtime: NRT_FAILURE, no crash,
 * no deadlock, and the parent is unaffected. */
static void test_fork_child(void) {
  pid_t pid = fork();
  if (pid == 0) {
    nrt_tensor_t *t = NULL;
    NRT_STATUS s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "child", &t);
    NRT_STATUS i = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
    _exit(s == NRT_FAILURE && i == NRT_FAILURE && t == NULL ? 0 : 1);
  }
  int status = -1;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  nrt_tensor_t *t = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "parent", &t), NRT_SUCCESS);
  nrt_tensor_free(&t);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s <total_vnc> <visible_vnc> <family> <size> <lnc>\n", argv[0]);
    return 2;
  }
  uint32_t total = (uint32_t)atoi(argv[1]), visible = (uint32_t)atoi(argv[2]);
  uint32_t family = (uint32_t)atoi(argv[3]), size = (uint32_t)atoi(argv[4]);
  uint32_t lnc = (uint32_t)atoi(argv[5]);

  test_status_names();
  test_before_init();
  test_instance_queries(total, visible, family, size);

  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS); /* idempotent */
  test_instance_queries(total, visible, family, size);
  test_device_tensors(visible, lnc);
  test_host_and_virtual_tensors();
  test_tensor_sets();
  test_memory_accounting(visible);
  test_fork_child();

  /* A tensor still held at close is released by close; calls after close say so. */
  nrt_tensor_t *kept = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "kept", &kept), NRT_SUCCESS);
  nrt_close();
  unsigned char byte;
  EXPECT_EQ(nrt_tensor_read(kept, &byte, 0, 1), NRT_CLOSED);
  nrt_tensor_t *t = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "t", &t), NRT_CLOSED);
  nrt_tensor_free(&kept); /* logs, never crashes */
  nrt_close();            /* closing twice is harmless */

  /* Re-init after close works and starts from empty device memory. */
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  nrt_vnc_memory_stats_t stats;
  size_t written = 0;
  EXPECT_EQ(nrt_get_vnc_memory_stats(0, &stats, sizeof(stats), &written), NRT_SUCCESS);
  EXPECT_EQ(stats.bytes_used, 0);
  nrt_close();

  C_CHECK_SUMMARY();
}
