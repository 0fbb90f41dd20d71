/* src/bvh/bvh_dispatch.c — in builds that dispatch at run time (SR_ISA_DISPATCH, meson.build):
 * the entry points of the ray traversal kernels, which call the copy compiled for the
 * instruction set in use (sr_isa_active: AVX-512, AVX2 or the build's own SSE2; bvh_leaf.h
 * names the copies). Every copy gives the same answers bit for bit (tests/test_bvh_wide.c,
 * tests/test_bvh_packet.c).
 * Other builds compile the kernels once, under these names, and this file is empty. */
#include "bvh_internal.h"

#if defined(SR_ISA_DISPATCH)
#include <stdatomic.h>

typedef bool (*wide_fn)(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode, sr_bvh_ray_primitive_fn intersect,
                        void *user, sr_bvh_hit *hit);
typedef int (*packet_fn)(const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits);
typedef unsigned (*filter_fn)(const sr_triangle_pack *pack, const sr_ray *ray);

#define DECLARE_KERNELS(suffix)                                                                                        \
    bool sr_bvh_query_wide_##suffix(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,                        \
                                    sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit);                   \
    int sr_bvh_query_ray_packet_##suffix(const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits);          \
    unsigned sr_bvh_pack_filter_##suffix(const sr_triangle_pack *pack, const sr_ray *ray);
DECLARE_KERNELS(base)
DECLARE_KERNELS(avx2)
DECLARE_KERNELS(avx512)

typedef struct kernels {
    wide_fn wide;
    packet_fn packet;
    filter_fn filter;
} kernels;

static const kernels copies[] = {
    [SR_ISA_BUILD] = {sr_bvh_query_wide_base, sr_bvh_query_ray_packet_base, sr_bvh_pack_filter_base},
    [SR_ISA_AVX2] = {sr_bvh_query_wide_avx2, sr_bvh_query_ray_packet_avx2, sr_bvh_pack_filter_avx2},
    [SR_ISA_AVX512] = {sr_bvh_query_wide_avx512, sr_bvh_query_ray_packet_avx512, sr_bvh_pack_filter_avx512},
};

static const kernels *active(void)
{
    /* decided at the first query; two threads deciding at once decide alike */
    static _Atomic(const kernels *) chosen;
    const kernels *k = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (!k) {
        k = &copies[sr_isa_active()];
        atomic_store_explicit(&chosen, k, memory_order_relaxed);
    }
    return k;
}

bool sr_bvh_query_wide(const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode, sr_bvh_ray_primitive_fn intersect,
                       void *user, sr_bvh_hit *hit)
{
    return active()->wide(bvh, ray, mode, intersect, user, hit);
}

int sr_bvh_query_ray_packet(const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits)
{
    return active()->packet(bvh, rays, count, hits);
}

unsigned sr_bvh_pack_filter(const sr_triangle_pack *pack, const sr_ray *ray)
{
    return active()->filter(pack, ray);
}

bool sr_bvh_query_wide_isa(sr_isa isa, const sr_bvh *bvh, const sr_ray *ray, sr_bvh_ray_mode mode,
                           sr_bvh_ray_primitive_fn intersect, void *user, sr_bvh_hit *hit)
{
    return copies[isa].wide(bvh, ray, mode, intersect, user, hit);
}

int sr_bvh_query_ray_packet_isa(sr_isa isa, const sr_bvh *bvh, const sr_ray *rays, int count, sr_bvh_hit *hits)
{
    return copies[isa].packet(bvh, rays, count, hits);
}
#endif
