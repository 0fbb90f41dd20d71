/* tests/bench/pile_workload.h — the pile of the collision-pass benchmark, shared by
 * bench_scene_collide.c (softrast's sr_scene_collide) and its side-by-side baseline
 * bench_scene_collide_bullet.cpp (Bullet's btCollisionWorld), so that both time the same shapes in
 * the same places making the same moves.
 *
 * N shapes (default 10,000) cycle through sphere, box, capsule, cylinder, cone and hull (one of
 * three hulls of 16 points on a squashed ball), 0.35 to 0.6 in size, every seventh rounded by
 * 0.03, on a jittered grid of spacing 1 as close to a cube as N allows, so that neighbours touch,
 * penetrate or come near. Each shape wobbles around its place (up to 0.05, a phase and a speed of
 * its own) and turns about an axis of its own (up to 0.05 rad from its resting angle): from frame
 * to frame about 5 thousandths of a unit and a few tenths of a degree, as a settling pile moves.
 * One random generator (xorshift64*) with one seed, drawn in a fixed order.
 *
 * Plain C17 that is also valid C++ (no softrast types, explicit casts of malloc), all functions
 * static inline. Not a test. */
#ifndef SOFTRAST_BENCH_PILE_WORKLOAD_H
#define SOFTRAST_BENCH_PILE_WORKLOAD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define PILE_HULLS 3
#define PILE_HULL_POINTS 16
#define PILE_ROUNDING 0.03

typedef enum pile_kind { PILE_SPHERE, PILE_BOX, PILE_CAPSULE, PILE_CYLINDER, PILE_CONE, PILE_HULL } pile_kind;

/// One shape of the pile: what it is (the sizes a softrast maker takes: sphere radius; box half
/// extents; capsule, cylinder and cone radius and half height along local z, the cone's apex at
/// +half height; which hull), where it rests and how it moves.
typedef struct pile_body {
    pile_kind kind;
    double radius, half_height, half_extents[3];
    int hull;
    double rounding;
    float home[3];
    float axis[3]; ///< the turning axis, not normalised
    float phase, speed, spin;
} pile_body;

typedef struct pile {
    long count;
    double hull_points[PILE_HULLS][PILE_HULL_POINTS][3];
    pile_body *bodies;
} pile;

static uint64_t pile_random_state = 0x2545F4914F6CDD1Dull;

static inline double pile_uniform(double low, double high)
{
    pile_random_state ^= pile_random_state >> 12;
    pile_random_state ^= pile_random_state << 25;
    pile_random_state ^= pile_random_state >> 27;
    return low + (high - low) * (double)((pile_random_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

/// The pile of `count` shapes; false when out of memory. Free with pile_free.
static inline bool pile_make(pile *p, long count)
{
    p->count = count;
    p->bodies = (pile_body *)calloc((size_t)count, sizeof *p->bodies);
    if (!p->bodies)
        return false;
    for (int h = 0; h < PILE_HULLS; h++)
        for (int i = 0; i < PILE_HULL_POINTS; i++) {
            // Points on a squashed ball of radius ~0.45.
            double z = pile_uniform(-1, 1), angle = pile_uniform(0, 2 * 3.14159265358979), r = sqrt(1 - z * z);
            p->hull_points[h][i][0] = 0.45 * r * cos(angle);
            p->hull_points[h][i][1] = 0.35 * z;
            p->hull_points[h][i][2] = 0.45 * r * sin(angle);
        }
    int side = (int)ceil(cbrt((double)count));
    for (long i = 0; i < count; i++) {
        pile_body *b = &p->bodies[i];
        double size = pile_uniform(0.35, 0.6);
        b->kind = (pile_kind)(i % 6);
        switch (b->kind) {
        case PILE_SPHERE:
            b->radius = size;
            break;
        case PILE_BOX:
            b->half_extents[0] = size;
            b->half_extents[1] = 0.8 * size;
            b->half_extents[2] = 0.9 * size;
            break;
        case PILE_CAPSULE:
            b->radius = 0.5 * size;
            b->half_height = 0.6 * size;
            break;
        case PILE_CYLINDER:
            b->radius = size;
            b->half_height = 0.7 * size;
            break;
        case PILE_CONE:
            b->radius = size;
            b->half_height = 0.8 * size;
            break;
        case PILE_HULL:
            b->hull = (int)(i % PILE_HULLS);
            break;
        }
        b->rounding = i % 7 == 0 ? PILE_ROUNDING : 0.0;
        const double jitter[3] = {pile_uniform(-0.1, 0.1), pile_uniform(-0.1, 0.1), pile_uniform(-0.1, 0.1)};
        b->home[0] = (float)(i % side + jitter[0]);
        b->home[1] = (float)((i / side) % side + jitter[1]);
        b->home[2] = (float)(i / ((long)side * side) + jitter[2]);
        const double axis[3] = {pile_uniform(-1, 1), pile_uniform(-1, 1), pile_uniform(-1, 1)};
        b->axis[0] = (float)axis[0];
        b->axis[1] = (float)axis[1];
        b->axis[2] = (float)axis[2] + 0.01f;
        b->phase = (float)pile_uniform(0, 6.28);
        b->speed = (float)pile_uniform(0.05, 0.15);
        b->spin = (float)pile_uniform(-0.05, 0.05);
    }
    return true;
}

static inline void pile_free(pile *p)
{
    free(p->bodies);
    p->bodies = NULL;
}

/// Whether shape i moves when `percent` of the shapes move (spread evenly; the others rest).
static inline bool pile_moves(long i, long percent)
{
    return (i * percent) % 100 < percent;
}

/// Body b's place at `time` (frames since the first move): its translation and its angle about
/// its axis. At rest (before any move) it is at home, turned by its phase.
static inline void pile_pose(const pile_body *b, float time, float translation[3], float *angle)
{
    float s = sinf(b->phase + b->speed * time), c = cosf(b->phase + 0.7f * b->speed * time);
    translation[0] = b->home[0] + 0.05f * s;
    translation[1] = b->home[1] + 0.05f * c;
    translation[2] = b->home[2] + 0.05f * s * c;
    *angle = b->phase + b->spin * s;
}

#endif
