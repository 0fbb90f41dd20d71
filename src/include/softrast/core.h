/* softrast/core.h — status codes, error messages and the allocator hook shared by every module.
 * Knows nothing of the other modules. */
#ifndef SOFTRAST_CORE_H
#define SOFTRAST_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A value of struct `type` written in braces, the same in C and C++: a compound literal in C
/// (`(sr_vec3){1, 2, 3}`), a braced temporary in C++ (`sr_vec3{1, 2, 3}`), which has no compound
/// literals. `SR_LITERAL(sr_node_id){0, 0}`. Designated fields (`{.color = c}`) read the same in
/// C and C++20, which wants them in declaration order; C++17 has positional fields only.
#ifdef __cplusplus
#define SR_LITERAL(type) type
#else
#define SR_LITERAL(type) (type)
#endif

/// The initialiser of a zeroed struct (every field its default) in C and C++ alike:
/// `sr_viewer_desc desc = SR_ZERO_INIT;`. It is `{0}` in C and `{}` in C++, where -Wextra warns
/// about `{0}` (and C17 has no `{}`).
#ifdef __cplusplus
#define SR_ZERO_INIT {}
#else
#define SR_ZERO_INIT {0}
#endif

/// Result of every function that can fail at run time. 0 is success.
typedef enum sr_status {
    SR_OK = 0,
    SR_ERROR_INVALID_ARGUMENT, ///< an argument is NULL, out of range, NaN, or sizes are absurd
    SR_ERROR_OUT_OF_MEMORY,    ///< an allocation failed (or the allocator hook refused it)
    SR_ERROR_IO,               ///< a file could not be opened, read, written or renamed
    SR_ERROR_PARSE,            ///< a file was read but its contents are malformed
    SR_ERROR_UNSUPPORTED,      ///< a valid request this build cannot serve (format, feature)
    SR_ERROR_CANCELLED,        ///< the caller's progress callback asked to stop (sr_progress_fn)
} sr_status;

/// Human-readable message of a failure, filled by the function that failed. Names the file,
/// line or argument and what was wrong. Callers own it (usually on the stack); every function
/// taking `sr_error *` accepts NULL when the caller does not want the message.
typedef struct sr_error {
    sr_status status;
    char message[512];
} sr_error;

/// Short constant name of a status: "ok", "invalid argument", "out of memory", "i/o error",
/// "parse error", "unsupported", "cancelled"; "unknown status" for any other value. Never NULL.
const char *sr_status_name(sr_status status);

/// Fills `err` (if not NULL) with `status` and a printf-style message, and returns `status`, so a
/// failing path reads `return sr_error_set(err, SR_ERROR_IO, "%s: cannot open", path);`.
sr_status sr_error_set(sr_error *err, sr_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// Progress of long work (loading a big OBJ file, building the BVH of a big mesh): `stage` says
/// what is being done ("reading bunny.obj", "building the BVH of mesh 'bunny'"; valid only during
/// the call), `fraction` how much of that stage is done, from 0 (reported when the stage starts)
/// to 1 (when it ends). Called on the thread doing the work. Return true to go on; false stops
/// the work, which then fails with SR_ERROR_CANCELLED (a viewer closed while loading).
typedef bool (*sr_progress_fn)(void *user, const char *stage, double fraction);

/// Clears `err` to status SR_OK and an empty message (no-op on NULL).
void sr_error_clear(sr_error *err);

/// The one allocator hook of the library (all-or-none), like STBI_MALLOC or b2SetAllocator.
/// `allocate` and `reallocate` return NULL on failure; `release` accepts NULL.
typedef struct sr_allocator {
    void *(*allocate)(size_t size, void *user);
    void *(*reallocate)(void *pointer, size_t size, void *user);
    void (*release)(void *pointer, void *user);
    void *user;
} sr_allocator;

/// Installs `allocator` for every later allocation of the library; NULL restores malloc/free.
/// This is the library's single piece of process-wide state (a configuration, not per-frame
/// data): set it before creating any object and never while another thread uses the library;
/// memory must be released by the allocator that gave it.
void sr_set_allocator(const sr_allocator *allocator);

/// Allocation through the hook. sizes are checked for overflow; every function returns NULL on
/// failure (zero sizes allocate one byte so that NULL always means failure).
void *sr_alloc(size_t size);
void *sr_calloc(size_t count, size_t size); ///< zero-filled, count*size checked for overflow
void *sr_realloc(void *pointer, size_t size);
void *sr_alloc_array(size_t count, size_t size); ///< count*size checked for overflow
void sr_free(void *pointer);
/// Asks the kernel for transparent huge pages over the 2 MiB-aligned interior of a block of 4 MiB
/// or more (Linux, THP in "madvise" mode; elsewhere nothing): for large arrays walked at random
/// or filled at once, where 4 KiB pages cost a TLB miss or a page fault every 4 KiB. Only advice:
/// the block stays its allocator's, nothing changes if the kernel refuses.
void sr_advise_huge_pages(void *block, size_t size);

/// Reads the whole regular file at `path` into a new buffer with a terminating NUL (not counted
/// in *out_size); free it with sr_free. Refuses what is not a regular file (a folder, a device
/// such as /dev/zero, a pipe: they could be read forever) and files over `max_size` bytes.
/// Errors name the file: SR_ERROR_IO (cannot open or read, not a regular file),
/// SR_ERROR_UNSUPPORTED (too large), SR_ERROR_OUT_OF_MEMORY. *out_data is NULL on failure.
sr_status sr_file_read(const char *path, size_t max_size, char **out_data, size_t *out_size, sr_error *err);

/// The file name of `path` without its folder and extension ("a/b/bunny.obj" gives "bunny"), cut
/// to fit `size` bytes with its NUL; "" for NULL. The name a scene gives a mesh read from a file.
void sr_path_stem(const char *path, char *out, size_t size);

/// Instruction sets of the kernels that are chosen at run time (the fill, the BVH ray
/// traversals, the shaders' block forms). A default build (generic x86-64, no -Dnative) carries
/// SSE2, AVX2 and AVX-512 variants and uses the widest one the processor has; a native build
/// (-Dnative=true) or a build for another architecture has one variant, SR_ISA_BUILD.
typedef enum sr_isa {
    SR_ISA_BUILD,  ///< the instructions the build was compiled for (SSE2 on generic x86-64, NEON on arm64)
    SR_ISA_AVX2,   ///< AVX2 with BMI2 (x86-64-v3)
    SR_ISA_AVX512, ///< AVX-512 F, VL, DQ, BW (x86-64-v4)
} sr_isa;

/// The variant in use, decided at the first call and then fixed for the process: the widest
/// that both the build and the processor have, lowered by the environment variable
/// SOFTRAST_ISA (`build`, `sse2` or `portable`: SR_ISA_BUILD; `avx2`; `avx512`: a limit, for
/// comparisons and benchmarks; an unknown value is ignored here, see
/// sr_isa_check_environment). Thread-safe.
sr_isa sr_isa_active(void);
/// SR_OK when SOFTRAST_ISA is unset or one of the values sr_isa_active knows; otherwise
/// SR_ERROR_INVALID_ARGUMENT with a message naming the variable, its value and the values
/// accepted. For programs that want a mistyped value to stop them rather than be ignored (the
/// softrast program does).
sr_status sr_isa_check_environment(sr_error *err);
/// Whether this build has kernels for `isa` and the processor runs them (SR_ISA_BUILD: always).
bool sr_isa_available(sr_isa isa);
/// "build" (or "sse2" / "neon" where known), "avx2", "avx512".
const char *sr_isa_name(sr_isa isa);

#ifdef __cplusplus
}
#endif
#endif
