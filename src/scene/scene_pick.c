/* src/scene/scene_pick.c — picking (softrast/scene.h): a world ray walks the instance tree, each
 * candidate instance gets the ray in its mesh space (an affine map keeps the ray parameter, so
 * t stays in world units) and its mesh BVH's closest hit; the closest hit over all instances
 * wins. The batch form splits points over threads. Knows nothing of drawing, files or SDL. */
#include "scene_internal.h"

#include <pthread.h>

typedef struct pick_context {
    const sr_scene *scene;
    const sr_ray *world_ray;
    sr_pick_hit *hit;
    float best_t;
    uint32_t best_node; ///< slot of the best hit so far (SCENE_NONE before the first)
    sr_bvh_hit best;    ///< the best hit in its mesh's space
} pick_context;

static float pick_instance(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy;
    pick_context *c = user;
    uint32_t index = (uint32_t)user_data;
    const scene_node *n = &c->scene->nodes[index];
    if (n->flags & NODE_HIDDEN)
        return ray->tmax;
    const scene_mesh *m = &c->scene->meshes[n->mesh - 1];
    // x_mesh = W^-1 x_world maps origin + t d to origin' + t d': the same t in both spaces.
    sr_vec3 origin = sr_mat4_transform_point(n->world_inverse, c->world_ray->origin);
    sr_vec3 direction = sr_mat4_transform_direction(n->world_inverse, c->world_ray->direction);
    sr_ray local = sr_ray_make(origin, direction, ray->tmin, ray->tmax);
    sr_bvh_hit hit;
    bool found = sr_bvh_query_ray(m->bvh, &local, &hit);
    c->hit->nodes_visited += hit.nodes_visited;
    c->hit->instances_tested++;
    // Equal distances go to the lower node index, the instance the rasteriser draws first (its
    // LESS depth test keeps the first of equal depths).
    if (found && (hit.t < c->best_t || (hit.t == c->best_t && index < c->best_node))) {
        c->best_t = hit.t;
        c->best_node = index;
        c->best = hit;
    }
    return c->best_t < ray->tmax ? c->best_t : ray->tmax;
}

sr_status sr_scene_pick_ray(const sr_scene *scene, const sr_ray *ray, sr_pick_hit *hit, sr_error *err)
{
    if (!scene || !ray || !hit)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick_ray: %s is NULL",
                            !scene ? "scene"
                            : !ray ? "ray"
                                   : "hit");
    *hit = (sr_pick_hit){.node = SR_NODE_NULL, .triangle = SR_NO_ID, .t = INFINITY, .ray = *ray};
    if (scene->dirty)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_scene_pick: the scene has edits waiting for sr_scene_update");
    // A poisoned ray (sr_ray_make's NaN tmin) hits nothing; the tree refuses it, so stop here.
    if (!(ray->tmin <= ray->tmax))
        return SR_OK;
    pick_context context = {.scene = scene, .world_ray = ray, .hit = hit, .best_t = INFINITY, .best_node = SCENE_NONE};
    sr_dynamic_tree_query_stats stats = sr_dynamic_tree_ray_cast(scene->instances, ray, pick_instance, &context, err);
    hit->nodes_visited += (uint32_t)stats.nodes_visited;
    if (stats.status != SR_OK)
        return stats.status;
    if (context.best_node == SCENE_NONE)
        return SR_OK;
    const scene_node *n = &scene->nodes[context.best_node];
    hit->hit = true;
    hit->node = (sr_node_id){context.best_node, n->generation};
    hit->triangle = context.best.primitive;
    hit->t = context.best.t;
    hit->u = context.best.u;
    hit->v = context.best.v;
    hit->position = sr_ray_at(ray, context.best.t);
    sr_vec3 normal = sr_vec3_normalize(sr_mat4_transform_direction(n->normal_matrix, context.best.normal));
    hit->normal = sr_vec3_dot(normal, ray->direction) > 0.0f ? sr_vec3_negate(normal) : normal;
    return SR_OK;
}

sr_status sr_scene_pick(const sr_scene *scene, const sr_camera *camera, int width, int height, float x, float y,
                        sr_pick_hit *hit, sr_error *err)
{
    if (!scene || !hit)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick: %s is NULL", scene ? "hit" : "scene");
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick: image size %dx%d is out of range", width,
                            height);
    if (!isfinite(x) || !isfinite(y))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick: point (%g, %g) is not finite", (double)x,
                            (double)y);
    sr_camera c = sr_camera_resolve(camera ? camera : &scene->camera);
    sr_status status = sr_camera_check(&c, err);
    if (status != SR_OK)
        return status;
    sr_ray ray = sr_camera_ray(&c, width, height, x, y);
    return sr_scene_pick_ray(scene, &ray, hit, err);
}

/* ---- many points on several threads ---- */

typedef struct pick_batch {
    const sr_scene *scene;
    sr_camera camera;
    int width, height;
    const sr_vec2 *points;
    sr_pick_hit *hits;
    size_t first, end;
    sr_status status;
    sr_error error;
} pick_batch;

static void *pick_range(void *user)
{
    pick_batch *b = user;
    for (size_t i = b->first; i < b->end && b->status == SR_OK; i++) {
        sr_ray ray = sr_camera_ray(&b->camera, b->width, b->height, b->points[i].x, b->points[i].y);
        b->status = sr_scene_pick_ray(b->scene, &ray, &b->hits[i], &b->error);
    }
    return NULL;
}

#define PICK_MAX_THREADS 64

sr_status sr_scene_pick_many(const sr_scene *scene, const sr_camera *camera, int width, int height,
                             const sr_vec2 *points, size_t count, int threads, sr_pick_hit *hits, sr_error *err)
{
    if (!scene || (count > 0 && (!points || !hits)))
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick_many: %s is NULL",
                            !scene    ? "scene"
                            : !points ? "points"
                                      : "hits");
    if (threads < 0 || threads > PICK_MAX_THREADS)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick_many: threads %d is outside [0, %d]",
                            threads, PICK_MAX_THREADS);
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick_many: image size %dx%d is out of range",
                            width, height);
    sr_camera c = sr_camera_resolve(camera ? camera : &scene->camera);
    sr_status status = sr_camera_check(&c, err);
    if (status != SR_OK)
        return status;
    if (scene->dirty)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT,
                            "sr_scene_pick_many: the scene has edits waiting for sr_scene_update");
    for (size_t i = 0; i < count; i++)
        if (!isfinite(points[i].x) || !isfinite(points[i].y))
            return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_scene_pick_many: point %zu (%g, %g) is not finite",
                                i, (double)points[i].x, (double)points[i].y);
    int workers = threads > 1 ? threads : 1;
    if ((size_t)workers > count)
        workers = count > 0 ? (int)count : 1;
    pick_batch batches[PICK_MAX_THREADS];
    pthread_t ids[PICK_MAX_THREADS];
    bool started[PICK_MAX_THREADS] = {false};
    for (int w = 0; w < workers; w++) {
        batches[w] = (pick_batch){.scene = scene,
                                  .camera = c,
                                  .width = width,
                                  .height = height,
                                  .points = points,
                                  .hits = hits,
                                  .first = count * (size_t)w / (size_t)workers,
                                  .end = count * (size_t)(w + 1) / (size_t)workers};
    }
    // Worker 0 is the calling thread; a thread that cannot start leaves its share to it.
    for (int w = 1; w < workers; w++)
        started[w] = pthread_create(&ids[w], NULL, pick_range, &batches[w]) == 0;
    pick_range(&batches[0]);
    for (int w = 1; w < workers; w++) {
        if (started[w])
            pthread_join(ids[w], NULL);
        else
            pick_range(&batches[w]);
    }
    for (int w = 0; w < workers; w++)
        if (batches[w].status != SR_OK) {
            if (err)
                *err = batches[w].error;
            return batches[w].status;
        }
    return SR_OK;
}
