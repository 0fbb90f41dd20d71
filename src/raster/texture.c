/* texture.c — RGBA8 textures: creation, loading through stb_image, and sampling with nearest or
 * bilinear filtering and repeat/clamp wrapping (softrast/raster.h).
 * Knows nothing of shaders or scenes: a shader calls sr_texture_sample per fragment. */
#include <softrast/raster.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// Debian's libstb already holds the implementation: include the declarations only (STYLE.md).
#include <stb_image.h>

sr_status sr_texture_create(const sr_texture_desc *desc, sr_texture **out, sr_error *err)
{
    if (out)
        *out = NULL;
    if (!desc || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_texture_create: %s is NULL", !desc ? "desc" : "out");
    int width = desc->width, height = desc->height;
    if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "texture size %dx%d: each side must be in [1, %d]", width,
                            height, SR_MAX_IMAGE_SIDE);

    size_t count = (size_t)width * (size_t)height;
    sr_texture *texture = sr_alloc(sizeof *texture);
    uint32_t *texels = desc->texels ? sr_alloc_array(count, sizeof *texels) : sr_calloc(count, sizeof *texels);
    if (!texture || !texels) {
        sr_free(texture);
        sr_free(texels);
        return sr_error_set(err, SR_ERROR_OUT_OF_MEMORY, "texture %dx%d: out of memory", width, height);
    }
    if (desc->texels)
        memcpy(texels, desc->texels, count * sizeof *texels);
    *texture = (sr_texture){width, height, texels};
    *out = texture;
    return SR_OK;
}

/* stb_image's (thread-local) reason for its last failure, never NULL. */
static const char *failure_reason(void)
{
    const char *reason = stbi_failure_reason();
    return reason ? reason : "unknown reason";
}

sr_status sr_texture_load(const char *path, sr_texture **out, sr_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_texture_load: %s is NULL", !path ? "path" : "out");

    // Opening the file ourselves separates "cannot read" (I/O, errno) from "not an image" (parse).
    FILE *file = fopen(path, "rb");
    if (!file) {
        int code = errno;
        char reason[128]; // strerror_r: plain strerror may share its buffer between threads
        if (strerror_r(code, reason, sizeof reason) != 0)
            snprintf(reason, sizeof reason, "error %d", code);
        return sr_error_set(err, SR_ERROR_IO, "%s: cannot open: %s", path, reason);
    }
    // The header alone first, so that an absurd size is refused before stb_image allocates for it.
    int width, height, channels;
    sr_status status = SR_OK;
    if (!stbi_info_from_file(file, &width, &height, &channels)) {
        status = sr_error_set(err, SR_ERROR_PARSE, "%s: not a readable image: %s", path, failure_reason());
    } else if (width < 1 || height < 1 || width > SR_MAX_IMAGE_SIDE || height > SR_MAX_IMAGE_SIDE) {
        status = sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: image size %dx%d exceeds the %d pixel limit", path, width,
                              height, SR_MAX_IMAGE_SIDE);
    } else {
        // 4 channels requested: stb_image converts grey, grey+alpha and RGB to RGBA8 (byte order
        // r, g, b, a, as sr_rgba8), rows top first, as the texture layout wants.
        unsigned char *pixels = stbi_load_from_file(file, &width, &height, &channels, 4);
        if (!pixels) {
            status = sr_error_set(err, SR_ERROR_PARSE, "%s: cannot decode: %s", path, failure_reason());
        } else {
            // Copied so that the texels come from the library's allocator, as sr_texture_destroy expects.
            sr_texture_desc desc = {width, height, (const uint32_t *)(const void *)pixels};
            status = sr_texture_create(&desc, out, err);
            stbi_image_free(pixels);
        }
    }
    fclose(file);
    return status;
}

void sr_texture_destroy(sr_texture *texture)
{
    if (!texture)
        return;
    sr_free(texture->texels);
    sr_free(texture);
}

/* Maps a coordinate to [0, 1] per the wrap mode, before any scaling by the texture size, so that
 * huge coordinates never reach an int conversion (floats beyond 2^24 are integers, so they
 * repeat to 0). Clamp saturates, which selects the same texels as clamping indices: beyond the
 * outer texel centres clamp-to-edge filtering sees only the edge texel. */
static float wrap_coordinate(float u, sr_wrap wrap)
{
    if (wrap == SR_WRAP_CLAMP)
        return u < 0.0f ? 0.0f : u > 1.0f ? 1.0f : u;
    // u - floor(u) is exact except for u in (-1, 0), where it may round up to 1.0; the float just
    // below 1 keeps such a u on the last texel, where it belongs.
    float fraction = u - floorf(u);
    return fraction < 1.0f ? fraction : 0x1.fffffep-1f;
}

/* Brings an index in [-1, size] back into [0, size - 1]: one period for repeat, the edge for clamp. */
static int wrap_index(int i, int size, sr_wrap wrap)
{
    if (i < 0)
        return wrap == SR_WRAP_CLAMP ? 0 : i + size;
    if (i >= size)
        return wrap == SR_WRAP_CLAMP ? size - 1 : i - size;
    return i;
}

static void unpack(uint32_t texel, float scale, float rgba[4])
{
    rgba[0] = (float)(texel & 0xffu) * scale;
    rgba[1] = (float)(texel >> 8 & 0xffu) * scale;
    rgba[2] = (float)(texel >> 16 & 0xffu) * scale;
    rgba[3] = (float)(texel >> 24) * scale;
}

void sr_texture_sample(const sr_texture *texture, const sr_sampler *sampler, float u, float v, float rgba[4])
{
    static const sr_sampler default_sampler = {0};
    if (!texture || !texture->texels) {
        rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0.0f; // "skipped safely": transparent black
        return;
    }
    if (!sampler)
        sampler = &default_sampler;
    const int width = texture->width, height = texture->height;
    const uint32_t *texels = texture->texels;
    const float to_unit = 1.0f / 255.0f;

    // Non-finite coordinates (a degenerate triangle's varyings) sample texel (0, 0), the contract.
    if (!isfinite(u) || !isfinite(v)) {
        unpack(texels[0], to_unit, rgba);
        return;
    }
    // Texel (i, j) covers [i, i + 1) x [j, j + 1) in texel space x = u * width, y = v * height:
    // its centre is at (i + 0.5) / width in u (raster.h). After wrapping, x is in [0, width].
    float x = wrap_coordinate(u, sampler->wrap_u) * (float)width;
    float y = wrap_coordinate(v, sampler->wrap_v) * (float)height;

    if (sampler->filter != SR_FILTER_BILINEAR) {
        int i = wrap_index((int)x, width, sampler->wrap_u);
        int j = wrap_index((int)y, height, sampler->wrap_v);
        unpack(texels[(size_t)j * (size_t)width + (size_t)i], to_unit, rgba);
        return;
    }

    // Bilinear: the four texel centres around (x, y) are at i0 + 0.5 and i0 + 1.5 with
    // i0 = floor(x - 0.5); the weights are the distances to the opposite centres. Each of the four
    // indices is wrapped on its own, so repeat blends across the seam and clamp holds the edge.
    float sx = x - 0.5f, sy = y - 0.5f;
    float fx = floorf(sx), fy = floorf(sy);
    float ax = sx - fx, ay = sy - fy; // weights of the second column and row
    int i0 = wrap_index((int)fx, width, sampler->wrap_u), i1 = wrap_index((int)fx + 1, width, sampler->wrap_u);
    int j0 = wrap_index((int)fy, height, sampler->wrap_v), j1 = wrap_index((int)fy + 1, height, sampler->wrap_v);
    const uint32_t *row0 = texels + (size_t)j0 * (size_t)width;
    const uint32_t *row1 = texels + (size_t)j1 * (size_t)width;

    float c00[4], c10[4], c01[4], c11[4];
    unpack(row0[i0], 1.0f, c00);
    unpack(row0[i1], 1.0f, c10);
    unpack(row1[i0], 1.0f, c01);
    unpack(row1[i1], 1.0f, c11);
    float w00 = (1.0f - ax) * (1.0f - ay) * to_unit, w10 = ax * (1.0f - ay) * to_unit;
    float w01 = (1.0f - ax) * ay * to_unit, w11 = ax * ay * to_unit;
    for (int c = 0; c < 4; c++)
        rgba[c] = c00[c] * w00 + c10[c] * w10 + c01[c] * w01 + c11[c] * w11;
}
