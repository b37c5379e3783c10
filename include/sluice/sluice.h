/* Sluice's C API: a stable ABI for hosts in any language (Python through ctypes, the JVM through
 * JNI, Rust, Go). Columnar data crosses it through the Arrow C Data and C Stream Interfaces.
 *
 * Conventions: functions return 0 on success and a non-zero Sluice status code on failure, with
 * the message available from sluice_last_error() on the same thread until the next call. Memory
 * that Sluice returns is freed with sluice_free(). */
#ifndef SLUICE_SLUICE_H
#define SLUICE_SLUICE_H

#include <stdint.h>

#include "sluice/format/c_data_interface.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by the API (0 = success). */
enum SluiceStatusCode {
  SLUICE_OK = 0,
  SLUICE_INVALID = 1,
  SLUICE_CORRUPT = 2,
  SLUICE_IO_ERROR = 3,
  SLUICE_OUT_OF_MEMORY = 4,
  SLUICE_NOT_IMPLEMENTED = 5,
  SLUICE_CANCELLED = 6
};

/** Returns Sluice's version, such as "0.1.0". */
const char* sluice_version(void);

/** Returns the message of the last failed call on this thread, or "" if none failed. */
const char* sluice_last_error(void);

/** Frees memory returned by Sluice (NULL is allowed). */
void sluice_free(void* pointer);

/** Encodes every batch of `input` as one Arrow IPC segment (schema, batches, end of stream).
 * `codec` is "none", "lz4", "zstd", "zstd:LEVEL" or "snappy" (NULL means "none"). Consumes
 * `input` (releases it). On success `*out_data` (free with sluice_free) holds `*out_size` bytes. */
int sluice_segment_encode(struct ArrowArrayStream* input, const char* codec, uint8_t** out_data,
                          int64_t* out_size);

/** Decodes an Arrow IPC segment (or stream, or file) into `out`, a stream the caller releases.
 * The bytes are copied, so the caller may free them at once. */
int sluice_segment_decode(const uint8_t* data, int64_t size, struct ArrowArrayStream* out);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_SLUICE_H */
