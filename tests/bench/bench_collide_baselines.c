/* tests/bench/bench_collide_baselines.c — softrast's convex collision queries side by side with
 * libccd's, FCL's and Bullet's on the same pairs (a pairs file), in one process, one thread:
 *
 *   query        softrast                      baselines
 *   intersect    sr_collide_intersect          libccd ccdGJKIntersect
 *   distance     sr_collide_distance           FCL fcl::distance (nearest points)
 *   penetration  sr_collide_penetration        Bullet btGjkEpaSolver2::Penetration, libccd
 *                                              ccdGJKPenetration (GJK + EPA) and ccdMPRPenetration,
 *                                              FCL fcl::collide (one contact)
 *   signed       sr_collide_signed_distance    FCL fcl::distance (enable_signed_distance),
 *                                              Bullet btGjkEpaSolver2::SignedDistance
 *
 * For each it prints the median time per query over the pairs, the ratio softrast / baseline
 * (both timed on the pairs the baseline answered), how many answers are wrong by the oracle of the
 * tests (tests/collide_oracle.h, issue 21's tolerances), and how many disagree with softrast's.
 *
 * Every method first answers every pair in a child process with a limit of CPU time per pair: a
 * pair on which it hangs or crashes is counted as such (and as wrong) and left out of its timing. Pairs a
 * library cannot represent (FCL has no rounded boxes, hulls, segments, triangles, cylinders or
 * cones) are counted apart. libccd is given softrast's support mappings (sr_shape_support) and the
 * shapes' middles as centres, max_iterations 1000 (its default has no cap) and its default
 * tolerances; FCL and Bullet their own shapes (bench_collide_baselines_fcl_bullet.cpp).
 *
 *   ./build/tests/bench/bench_collide_baselines PAIRS.jsonl [--runs N] [--limit-ms T]
 *
 * Times: each call timed alone (the clock's own cost taken off), N passes over the pairs after a
 * warm-up pass; a pair's time is its median over the passes, and the table gives the median and
 * the mean of those over the pairs. The time limit per pair is 100 ms by default.
 *
 * BENCH_COLLIDE_WRONG=FOLDER keeps each method's wrong pairs there, one pairs file per method, each
 * pair after a comment saying what was wrong. */
#include "collide_baselines.h"
#include "collide_oracle.h"

#include <softrast/collide.h>
#include <softrast/scene.h>

#include <ccd/ccd.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef enum method {
    OURS_INTERSECT,
    OURS_DISTANCE,
    OURS_PENETRATION,
    OURS_SIGNED,
    CCD_GJK_INTERSECT,
    CCD_GJK_EPA,
    CCD_MPR,
    FCL_DISTANCE,
    FCL_SIGNED,
    FCL_COLLIDE,
    BULLET_PENETRATION,
    BULLET_SIGNED,
    METHOD_COUNT
} method;

typedef enum query { Q_INTERSECT, Q_DISTANCE, Q_PENETRATION, Q_SIGNED, QUERY_COUNT } query;

static const struct {
    const char *name;
    query query;
} methods[METHOD_COUNT] = {
    {"softrast sr_collide_intersect", Q_INTERSECT},
    {"softrast sr_collide_distance", Q_DISTANCE},
    {"softrast sr_collide_penetration", Q_PENETRATION},
    {"softrast sr_collide_signed_distance", Q_SIGNED},
    {"libccd ccdGJKIntersect", Q_INTERSECT},
    {"libccd ccdGJKPenetration (EPA)", Q_PENETRATION},
    {"libccd ccdMPRPenetration", Q_PENETRATION},
    {"FCL distance", Q_DISTANCE},
    {"FCL signed distance", Q_SIGNED},
    {"FCL collide (contact)", Q_PENETRATION},
    {"Bullet GJK+EPA Penetration", Q_PENETRATION},
    {"Bullet GJK+EPA SignedDistance", Q_SIGNED},
};

static const char *const query_names[QUERY_COUNT] = {"intersect", "distance", "penetration", "signed"};
static const method ours_of[QUERY_COUNT] = {OURS_INTERSECT, OURS_DISTANCE, OURS_PENETRATION, OURS_SIGNED};

/* What a method answered for a pair. */
typedef enum fate { ANSWERED = 0, NOT_REPRESENTABLE, HUNG, CRASHED } fate;

typedef struct answer {
    fate fate;
    baseline_answer a;
} answer;

/* A shape for libccd: softrast's shape and its middle. */
typedef struct ccd_shape {
    const sr_shape *shape;
    sr_dvec3 centre;
} ccd_shape;

typedef struct pair {
    const sr_pair *source;
    oracle_shape oracle_a, oracle_b;
    ccd_shape ccd_a, ccd_b;
    baseline_pair *baselines;
    oracle_pair *oracle; /* large */
    oracle_answer truth;
} pair;

/* A query that takes longer than this on one pair is a hang (a physics step has a few ms). */
static double limit_ms = 100.0;

/* ---- libccd ---- */

static void ccd_support(const void *object, const ccd_vec3_t *direction, ccd_vec3_t *out)
{
    const ccd_shape *s = object;
    sr_dvec3 p = sr_shape_support(s->shape, (sr_dvec3){direction->v[0], direction->v[1], direction->v[2]});
    ccdVec3Set(out, p.x, p.y, p.z);
}

static void ccd_centre(const void *object, ccd_vec3_t *out)
{
    const ccd_shape *s = object;
    ccdVec3Set(out, s->centre.x, s->centre.y, s->centre.z);
}

static ccd_t ccd_settings(void)
{
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_centre;
    ccd.center2 = ccd_centre;
    ccd.max_iterations = 1000;
    return ccd;
}

/* ---- running a method on a pair ---- */

static void set3(double out[3], sr_dvec3 v)
{
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
}

static baseline_answer from_result(const sr_collide_result *r, bool overlap_as_zero)
{
    baseline_answer a = {.answered = true, .hit = r->hit, .has_distance = true, .has_points = true};
    a.has_normal = !(overlap_as_zero && r->hit);
    a.distance = overlap_as_zero && r->hit ? 0.0 : r->distance;
    set3(a.normal, r->normal);
    set3(a.point_a, r->point_a);
    set3(a.point_b, r->point_b);
    return a;
}

static bool representable(method m, const pair *p)
{
    if (m == FCL_DISTANCE || m == FCL_SIGNED || m == FCL_COLLIDE)
        return baseline_representable((baseline_method)(BASELINE_FCL_DISTANCE + (m - FCL_DISTANCE)), p->baselines);
    return true;
}

static baseline_answer run(method m, const pair *p)
{
    const sr_shape *a = &p->source->a.shape, *b = &p->source->b.shape;
    sr_collide_result r;
    baseline_answer out = {.answered = true};
    switch (m) {
    case OURS_INTERSECT: {
        sr_dvec3 axis = {0, 0, 0};
        sr_collide_intersect(a, b, &axis, NULL, &out.hit);
        return out;
    }
    case OURS_DISTANCE:
        sr_collide_distance(a, b, NULL, &r);
        return from_result(&r, true);
    case OURS_PENETRATION:
        sr_collide_penetration(a, b, NULL, &r);
        return from_result(&r, false);
    case OURS_SIGNED:
        sr_collide_signed_distance(a, b, NULL, &r);
        return from_result(&r, false);
    case CCD_GJK_INTERSECT: {
        ccd_t ccd = ccd_settings();
        out.hit = ccdGJKIntersect(&p->ccd_a, &p->ccd_b, &ccd) != 0;
        return out;
    }
    case CCD_GJK_EPA:
    case CCD_MPR: {
        ccd_t ccd = ccd_settings();
        ccd_real_t depth = 0;
        ccd_vec3_t direction, position;
        int status = m == CCD_GJK_EPA ? ccdGJKPenetration(&p->ccd_a, &p->ccd_b, &ccd, &depth, &direction, &position)
                                      : ccdMPRPenetration(&p->ccd_a, &p->ccd_b, &ccd, &depth, &direction, &position);
        out.hit = status == 0;
        if (out.hit) { /* libccd: moving obj2 by depth along dir makes them touch, as softrast's normal */
            out.has_distance = out.has_normal = true;
            out.distance = -depth;
            set3(out.normal, (sr_dvec3){direction.v[0], direction.v[1], direction.v[2]});
        }
        return out;
    }
    default:
        out = baseline_run((baseline_method)(BASELINE_FCL_DISTANCE + (m - FCL_DISTANCE)), p->baselines);
        if (out.has_distance) /* judged by its distance (Bullet may say penetrating with a negative depth) */
            out.hit = out.distance <= 0.0;
        return out;
    }
}

/* ---- every answer in child processes, with a time limit per pair ---- */

static answer *answer_isolated(method m, pair *pairs, size_t count)
{
    answer *answers = calloc(count ? count : 1, sizeof *answers);
    if (!answers)
        abort();
    size_t next = 0;
    while (next < count) {
        while (next < count && !representable(m, &pairs[next]))
            answers[next++].fate = NOT_REPRESENTABLE;
        if (next == count)
            break;
        int fds[2];
        if (pipe(fds) != 0) {
            perror("bench_collide_baselines: pipe");
            exit(1);
        }
        fflush(stdout);
        pid_t child = fork();
        if (child < 0) {
            perror("bench_collide_baselines: fork");
            exit(1);
        }
        if (child == 0) {
            close(fds[0]);
            for (size_t i = next; i < count; i++) {
                answer a = {.fate = NOT_REPRESENTABLE};
                if (representable(m, &pairs[i])) {
                    struct itimerval timer = {
                        {0, 0}, {(time_t)(limit_ms / 1000.0), (suseconds_t)(fmod(limit_ms, 1000.0) * 1000.0)}};
                    /* CPU time, not the clock: a loaded machine must not make hangs. SIGVTALRM's
                     * default action ends the child. */
                    setitimer(ITIMER_VIRTUAL, &timer, NULL);
                    a.fate = ANSWERED;
                    a.a = run(m, &pairs[i]);
                }
                if (write(fds[1], &a, sizeof a) != (ssize_t)sizeof a)
                    _exit(3);
            }
            _exit(0);
        }
        close(fds[1]);
        answer a;
        size_t got = 0;
        for (;;) {
            ssize_t n = read(fds[0], (char *)&a + got, sizeof a - got);
            if (n <= 0)
                break;
            got += (size_t)n;
            if (got == sizeof a) {
                answers[next++] = a;
                got = 0;
            }
        }
        close(fds[0]);
        int status = 0;
        waitpid(child, &status, 0);
        if (next < count && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            answers[next++].fate = WIFSIGNALED(status) && WTERMSIG(status) == SIGVTALRM ? HUNG : CRASHED;
    }
    return answers;
}

/* ---- judging ---- */

static oracle_verdict judge(method m, const pair *p, const oracle_answer *truth, const answer *a, char *why,
                            size_t size)
{
    if (a->fate == HUNG || a->fate == CRASHED) {
        snprintf(why, size, "%s", a->fate == HUNG ? "hung (time limit)" : "crashed");
        return ORACLE_FAIL;
    }
    const baseline_answer *b = &a->a;
    if (!b->answered) { /* no answer at all: right only where either is */
        snprintf(why, size, "gave no answer");
        return fabs(truth->distance) <= oracle_tolerance(truth->size, truth->distance) ? ORACLE_PASS : ORACLE_FAIL;
    }
    if (!b->has_distance || methods[m].query == Q_INTERSECT)
        return oracle_judge_intersect(p->oracle, truth, b->hit, NULL, why, size);
    oracle_claim c = {b->hit,
                      b->distance,
                      b->has_normal,
                      b->has_points,
                      {b->normal[0], b->normal[1], b->normal[2]},
                      {b->point_a[0], b->point_a[1], b->point_a[2]},
                      {b->point_b[0], b->point_b[1], b->point_b[2]}};
    return oracle_judge_signed(p->oracle, truth, &c, methods[m].query == Q_DISTANCE, why, size);
}

/* Whether a method's answer disagrees with softrast's (beyond the oracle's tolerances: softrast's
 * answer standing in for the truth). */
static bool disagrees(method m, const pair *p, const answer *theirs, const answer *ours)
{
    char why[512];
    if (!ours->a.has_distance) { /* intersection: the hit flags, where they are not near touching */
        double tol = oracle_tolerance(p->truth.size, p->truth.distance);
        if (theirs->fate != ANSWERED)
            return true;
        return theirs->a.hit != ours->a.hit && fabs(p->truth.distance) > tol;
    }
    oracle_answer t = p->truth;
    t.exact = t.certified = true;
    t.lo = t.hi = t.distance = ours->a.distance;
    if (ours->a.has_normal)
        t.normal = (sr_dvec3){ours->a.normal[0], ours->a.normal[1], ours->a.normal[2]};
    return judge(m, p, &t, theirs, why, sizeof why) == ORACLE_FAIL;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

static double median_of(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* The clock's own cost: the median of back-to-back readings. */
static double clock_overhead(void)
{
    double samples[1001];
    for (int i = 0; i < 1001; i++) {
        double start = seconds();
        samples[i] = seconds() - start;
    }
    return median_of(samples, 1001);
}

typedef struct timing {
    double median_ns; /* the median over the pairs of each pair's median over the runs */
    double mean_ns;   /* the mean over the pairs of the same */
} timing;

/* Times method m on every pair of `subset`: each call alone, `runs` passes over the pairs after a
 * warm-up pass, the clock's own cost taken off. */
static timing time_method(method m, const pair *pairs, const size_t *subset, size_t count, int runs, double overhead)
{
    timing t = {NAN, NAN};
    if (count == 0)
        return t;
    double *samples = malloc(count * (size_t)runs * sizeof *samples), *per_pair = malloc(count * sizeof *per_pair);
    if (!samples || !per_pair)
        abort();
    volatile double sink = 0.0;
    for (int pass = -1; pass < runs; pass++)
        for (size_t i = 0; i < count; i++) {
            double start = seconds();
            baseline_answer a = run(m, &pairs[subset[i]]);
            double elapsed = seconds() - start - overhead;
            sink = sink + a.distance + a.hit;
            if (pass >= 0)
                samples[i * (size_t)runs + (size_t)pass] = elapsed * 1e9;
        }
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        per_pair[i] = median_of(samples + i * (size_t)runs, (size_t)runs);
        sum += per_pair[i];
    }
    t.mean_ns = sum / (double)count;
    t.median_ns = median_of(per_pair, count);
    free(samples);
    free(per_pair);
    return t;
}

/* The shape's middle: its position, or the mean of its points (world). */
static sr_dvec3 middle(const sr_pair_shape *side)
{
    if (!side->points)
        return side->shape.pose.position;
    sr_dvec3 sum = {0, 0, 0};
    for (size_t i = 0; i < side->point_count; i++) {
        sr_dvec3 p = sr_pose_apply(side->shape.pose, side->points[i]);
        sum = (sr_dvec3){sum.x + p.x, sum.y + p.y, sum.z + p.z};
    }
    double n = (double)side->point_count;
    return (sr_dvec3){sum.x / n, sum.y / n, sum.z / n};
}

/* The plain-data shape for FCL and Bullet; `storage` receives the brute-force polytope. */
typedef struct plain_storage {
    double points[3 * ORACLE_MAX_POINTS], vertices[3 * 2 * ORACLE_MAX_POINTS];
    int faces[2 * ORACLE_MAX_FACES + 2 * ORACLE_MAX_FACE_VERTICES];
} plain_storage;

static baseline_shape plain_shape(const sr_pair_shape *side, plain_storage *storage)
{
    static oracle_poly poly;
    const sr_shape *s = &side->shape;
    baseline_shape out = {.type = (int)s->type,
                          .position = {s->pose.position.x, s->pose.position.y, s->pose.position.z},
                          .rotation = {s->pose.rotation.x, s->pose.rotation.y, s->pose.rotation.z, s->pose.rotation.w},
                          .radius = s->radius,
                          .half_height = s->half_height,
                          .rounding = s->rounding,
                          .half_extents = {s->half_extents.x, s->half_extents.y, s->half_extents.z}};
    sr_dvec3 origin = {0, 0, 0};
    const sr_dvec3 *points = side->points ? side->points : &origin;
    size_t count = side->points ? side->point_count : 1;
    for (size_t i = 0; i < count; i++)
        set3(storage->points + 3 * i, points[i]);
    out.points = storage->points;
    out.point_count = count;
    oracle_poly_build(points, count, &poly);
    for (int i = 0; i < poly.vertex_count; i++)
        set3(storage->vertices + 3 * i, poly.vertices[i]);
    size_t length = 0;
    for (int f = 0; f < poly.face_count; f++) {
        storage->faces[length++] = poly.faces[f].count;
        for (int k = 0; k < poly.faces[f].count; k++)
            storage->faces[length++] = poly.face_vertices[poly.faces[f].first + k];
    }
    out.vertices = storage->vertices;
    out.vertex_count = (size_t)poly.vertex_count;
    out.faces = storage->faces;
    out.face_count = (size_t)poly.face_count;
    return out;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int runs = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--limit-ms") == 0 && i + 1 < argc)
            limit_ms = atof(argv[++i]);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            path = NULL, runs = 0;
    }
    if (!path || runs < 1 || runs > 1000 || !(limit_ms > 0)) {
        fputs("usage: bench_collide_baselines PAIRS.jsonl [--runs N (1 to 1000, default 5)] [--limit-ms T (default "
              "100)]\n",
              stderr);
        return 2;
    }
    sr_pair_set *set = NULL;
    sr_error err = {0};
    if (sr_pair_set_load(path, &set, &err) != SR_OK) {
        fprintf(stderr, "bench_collide_baselines: %s\n", err.message);
        return 1;
    }
    size_t count = set->count;
    pair *pairs = calloc(count ? count : 1, sizeof *pairs);
    static plain_storage storage_a, storage_b;
    size_t uncertified_pairs = 0;
    for (size_t i = 0; i < count; i++) {
        pair *p = &pairs[i];
        p->source = &set->pairs[i];
        if (!oracle_from_shape(&p->source->a.shape, p->source->a.points, p->source->a.point_count, &p->oracle_a) ||
            !oracle_from_shape(&p->source->b.shape, p->source->b.points, p->source->b.point_count, &p->oracle_b)) {
            fprintf(stderr, "bench_collide_baselines: %s:%u: a hull of more than %d points (the oracle's limit)\n",
                    path, p->source->line, ORACLE_MAX_POINTS);
            return 1;
        }
        p->ccd_a = (ccd_shape){&p->source->a.shape, middle(&p->source->a)};
        p->ccd_b = (ccd_shape){&p->source->b.shape, middle(&p->source->b)};
        baseline_shape a = plain_shape(&p->source->a, &storage_a), b = plain_shape(&p->source->b, &storage_b);
        p->baselines = baseline_pair_create(&a, &b);
        p->oracle = malloc(sizeof *p->oracle);
        if (!p->oracle)
            abort();
        oracle_pair_prepare(p->oracle, &p->oracle_a, &p->oracle_b);
        oracle_solve(p->oracle, &p->truth);
        uncertified_pairs += !p->truth.certified;
    }
    answer *answers[METHOD_COUNT];
    for (int m = 0; m < METHOD_COUNT; m++)
        answers[m] = answer_isolated((method)m, pairs, count);

    printf("bench_collide_baselines: %zu pairs of %s, %d timed runs, one thread; %zu pairs the oracle could not "
           "certify\n",
           count, path, runs, uncertified_pairs);
    double overhead = clock_overhead();
    printf("(ns: the median over the pairs of each pair's median time over the runs; mean: their mean; ours/it: "
           "softrast's median / its, on the pairs it answered; vs ours: answers that disagree with softrast's)\n");
    printf("%-36s %6s %9s %9s %8s %6s %7s %6s %5s %7s %7s\n", "method", "pairs", "ns", "mean ns", "ours/it", "wrong",
           "wrong%", "uncert", "hung", "crashed", "vs ours");
    const char *keep = getenv("BENCH_COLLIDE_WRONG");
    size_t *timed = malloc((count ? count : 1) * sizeof *timed);
    char json[16384];
    size_t used = (size_t)snprintf(json, sizeof json, "{\"pairs\": %zu, \"runs\": %d, \"methods\": [", count, runs);
    for (int m = 0; m < METHOD_COUNT; m++) {
        method ours = ours_of[methods[m].query];
        size_t answered = 0, wrong = 0, uncertified = 0, hung = 0, crashed = 0, disagree = 0, timed_count = 0;
        FILE *examples = NULL;
        for (size_t i = 0; i < count; i++) {
            const answer *a = &answers[m][i];
            if (a->fate == NOT_REPRESENTABLE)
                continue;
            answered++;
            hung += a->fate == HUNG;
            crashed += a->fate == CRASHED;
            if (a->fate == ANSWERED && answers[ours][i].fate == ANSWERED)
                timed[timed_count++] = i;
            char why[512] = "";
            oracle_verdict v = judge((method)m, &pairs[i], &pairs[i].truth, a, why, sizeof why);
            uncertified += v == ORACLE_UNCERTIFIED;
            if (v == ORACLE_FAIL) {
                wrong++;
                if (keep) {
                    if (!examples) {
                        char file[1024];
                        snprintf(file, sizeof file, "%s/wrong_%02d.jsonl", keep, m);
                        examples = fopen(file, "w");
                        if (examples)
                            fprintf(examples, "# %s: wrong answers (bench_collide_baselines on %s)\n", methods[m].name,
                                    path);
                    }
                    if (examples) {
                        fprintf(examples, "# %s\n", why);
                        oracle_print_pair(examples, pairs[i].source->id, &pairs[i].oracle_a, &pairs[i].oracle_b);
                    }
                }
            }
            if (m != (int)ours && answers[ours][i].fate == ANSWERED)
                disagree += disagrees((method)m, &pairs[i], a, &answers[ours][i]);
        }
        if (examples)
            fclose(examples);
        timing theirs = time_method((method)m, pairs, timed, timed_count, runs, overhead);
        timing own = m == (int)ours ? theirs : time_method(ours, pairs, timed, timed_count, runs, overhead);
        double ns = theirs.median_ns, ours_ns = own.median_ns;
        printf("%-36s %6zu %9.1f %9.1f %8.3f %6zu %6.2f%% %6zu %5zu %7zu %7zu\n", methods[m].name, answered, ns,
               theirs.mean_ns, ours_ns / ns, wrong, answered ? 100.0 * (double)wrong / (double)answered : 0.0,
               uncertified, hung, crashed, m == (int)ours ? 0 : disagree);
        used +=
            (size_t)snprintf(json + used, sizeof json - used,
                             "%s{\"method\": \"%s\", \"query\": \"%s\", \"pairs\": %zu, \"ns\": %.1f, "
                             "\"mean_ns\": %.1f, \"ours_ns\": %.1f, \"wrong\": %zu, \"uncertified\": %zu, "
                             "\"hung\": %zu, \"crashed\": %zu, \"disagree_with_ours\": %zu}",
                             m ? ", " : "", methods[m].name, query_names[methods[m].query], answered, ns,
                             theirs.mean_ns, ours_ns, wrong, uncertified, hung, crashed, m == (int)ours ? 0 : disagree);
    }
    printf("%s]}\n", json); /* the whole table as one JSON line, like the other benchmarks */
    free(timed);
    for (int m = 0; m < METHOD_COUNT; m++)
        free(answers[m]);
    for (size_t i = 0; i < count; i++) {
        baseline_pair_destroy(pairs[i].baselines);
        free(pairs[i].oracle);
    }
    free(pairs);
    sr_pair_set_destroy(set);
    return 0;
}
