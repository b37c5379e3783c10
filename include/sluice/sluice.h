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
 * `codec` is "none", "lz4", "zstd" or "zstd:LEVEL" (NULL means "none"). Consumes
 * `input` (releases it). On success `*out_data` (free with sluice_free) holds `*out_size` bytes. */
int sluice_segment_encode(struct ArrowArrayStream* input, const char* codec, uint8_t** out_data,
                          int64_t* out_size);

/** Decodes a partition segment (an Arrow IPC stream, or a compact segment: one LZ4 or zstd frame
 * around one, as a map writer makes of small partitions), or an Arrow IPC file, into `out`, a
 * stream the caller releases. The bytes are copied, so the caller may free them at once. */
int sluice_segment_decode(const uint8_t* data, int64_t size, struct ArrowArrayStream* out);

/** As sluice_segment_decode, for any segment of a map output: `first` holds the first
 * `first_size` bytes of the map output's data file (at least its first non-empty segment),
 * where the Schema message is that compact segments after the first are compressed against.
 * Copies what it needs of both. */
int sluice_segment_decode_in_map_output(const uint8_t* data, int64_t size, const uint8_t* first,
                                        int64_t first_size, struct ArrowArrayStream* out);

/* ---- Map side: MapWriter --------------------------------------------------------------- */

/** Options of a map writer, set as key-value text (see sluice/write/map_writer_settings.h for
 * every key: partitioning, partitions, keys, codec, memory-budget, checksum, data-path, ...). */
typedef struct SluiceMapWriterOptions SluiceMapWriterOptions;
/** A map task's writer. */
typedef struct SluiceMapWriter SluiceMapWriter;
/** What a finished map task produced: offsets, lengths, checksums, metrics. */
typedef struct SluiceMapOutput SluiceMapOutput;

SluiceMapWriterOptions* sluice_map_writer_options_new(void);
void sluice_map_writer_options_free(SluiceMapWriterOptions* options);
/** Sets one option. Column names in "keys" are resolved when the writer opens. */
int sluice_map_writer_options_set(SluiceMapWriterOptions* options, const char* key,
                                  const char* value);
/** Sets the range partitioning bounds: a struct array of the key columns, one row per bound.
 * Consumes both structs. */
int sluice_map_writer_options_set_range_bounds(SluiceMapWriterOptions* options,
                                               struct ArrowSchema* schema,
                                               struct ArrowArray* bounds);

/** Opens a writer for batches of `schema` (a struct schema; consumed). */
int sluice_map_writer_open(const SluiceMapWriterOptions* options, struct ArrowSchema* schema,
                           SluiceMapWriter** out);
/** Partitions and buffers one batch (a struct array of the columns) whose schema is `schema`.
 * The schema must have the writer's fields (names, types, nullability): a batch of another
 * layout is refused naming the column and both types, before its buffers are read (a C array
 * carries no buffer sizes, so an int32 column taken for int64 would be read past its end).
 * Dictionary-encoded columns are unpacked to their value type. Takes ownership of `schema` and
 * `batch`: the batch's memory is held (zero-copy) until the next spill or finish. */
int sluice_map_writer_write(SluiceMapWriter* writer, struct ArrowSchema* schema,
                            struct ArrowArray* batch);
/** Spills everything buffered (the host needs its memory back). */
int sluice_map_writer_spill(SluiceMapWriter* writer);
/** Writes and commits the output; on success `*out` must be freed with sluice_map_output_free. */
int sluice_map_writer_finish(SluiceMapWriter* writer, SluiceMapOutput** out);
/** Removes every file the task made. */
void sluice_map_writer_abort(SluiceMapWriter* writer);
/** Frees the writer, aborting it unless it finished. */
void sluice_map_writer_free(SluiceMapWriter* writer);
/** Bytes the writer holds in its budget now. */
int64_t sluice_map_writer_held_bytes(const SluiceMapWriter* writer);

int32_t sluice_map_output_partition_count(const SluiceMapOutput* output);
/** partition_count + 1 offsets of the partitions in the data file. */
const int64_t* sluice_map_output_offsets(const SluiceMapOutput* output);
/** partition_count lengths. */
const int64_t* sluice_map_output_lengths(const SluiceMapOutput* output);
/** partition_count checksums, or NULL when the checksum algorithm is none. */
const uint32_t* sluice_map_output_checksums(const SluiceMapOutput* output);
/** The metrics as a JSON object (rows, input_bytes, output_bytes, blocks, spills, ...); NULL
 * when memory for it cannot be had. */
const char* sluice_map_output_metrics_json(const SluiceMapOutput* output);
void sluice_map_output_free(SluiceMapOutput* output);

/* ---- Map side: RowMapWriter (Spark UnsafeRows) ---------------------------------------- */

/** A map task's writer for Spark UnsafeRows (sort-based, or scatter at high partition counts).
 * Options are a SluiceMapWriterOptions with, besides the map writer's keys, "page-bytes",
 * "strategy" (auto | sort | scatter) and "validate-utf8". */
typedef struct SluiceRowWriter SluiceRowWriter;

/** Opens a row writer for rows of `schema` (consumed; Spark-mappable types). */
int sluice_row_writer_open(const SluiceMapWriterOptions* options, struct ArrowSchema* schema,
                           SluiceRowWriter** out);
/** Copies `count` rows: row i has `sizes[i]` bytes at `rows[i]` and goes to `partitions[i]`. */
int sluice_row_writer_append(SluiceRowWriter* writer, const uint32_t* partitions,
                             const uint8_t* const* rows, const int32_t* sizes, int64_t count);
/** Copies the rows of a stream in Spark's UnsafeRowSerializer framing (big-endian int32 size,
 * then the row), one partition id per row. */
int sluice_row_writer_append_framed(SluiceRowWriter* writer, const uint32_t* partitions,
                                    int64_t count, const uint8_t* data, int64_t size);
/** Spills everything held; `*released` (may be NULL) receives the bytes freed. */
int sluice_row_writer_spill(SluiceRowWriter* writer, int64_t* released);
int sluice_row_writer_finish(SluiceRowWriter* writer, SluiceMapOutput** out);
void sluice_row_writer_free(SluiceRowWriter* writer);

/** Converts a batch (a struct array and its schema; both consumed) into Spark UnsafeRows in the
 * UnsafeRowSerializer framing. `*out_data` (free with sluice_free) holds `*out_size` bytes. */
int sluice_rows_from_arrow(struct ArrowArray* batch, struct ArrowSchema* schema, uint8_t** out_data,
                           int64_t* out_size);

/* ---- Reduce side: PartitionReader --------------------------------------------------------- */

/** Options of a partition reader, set as key-value text (see
 * sluice/read/partition_reader_settings.h for every key: coalesce, batch-rows, batch-bytes,
 * read-ahead, max-read-bytes, pooled-read-bytes, partitions, skip-failed, max-block-bytes,
 * checksum). */
typedef struct SluiceReaderOptions SluiceReaderOptions;

SluiceReaderOptions* sluice_reader_options_new(void);
void sluice_reader_options_free(SluiceReaderOptions* options);
/** Sets one option; a bad key or value fails here, naming both. */
int sluice_reader_options_set(SluiceReaderOptions* options, const char* key, const char* value);
/** The schema of the batches (a struct schema; consumed). Every segment's fields must equal it,
 * and it is what the stream returns when no map output has a row. Without it, the schema is
 * that of the first segment read, or, when the partitions asked for are all empty, the one the
 * map outputs' data files start with. */
int sluice_reader_options_set_schema(SluiceReaderOptions* options, struct ArrowSchema* schema);

/** What a reader has done, and the map outputs it skipped ("skip-failed"), updated after every
 * batch its stream returns. Outlives the stream or not, as the host likes. */
typedef struct SluiceReadReport SluiceReadReport;

SluiceReadReport* sluice_read_report_new(void);
/** Returns {"metrics": {"sources", "failed_sources", "bytes_read", "file_reads", "segments",
 * "blocks", "batches", "rows", "coalesced_batches", ... "wait_nanos", "pooled_bytes"}, "failures":
 * [{"source", "block", "code", "message"}]}; valid until the next call on this report or its free;
 * null when memory for it cannot be had. Call it from the thread that reads the stream. */
const char* sluice_read_report_json(SluiceReadReport* report);
void sluice_read_report_free(SluiceReadReport* report);

/** Opens a stream of partitions [start_partition, end_partition) of `count` map outputs in Spark's
 * layout, read in the order given: map output i is `data_paths[i]`, located through the index file
 * `index_paths[i]` (`index_paths` NULL, or an entry NULL: the data path with ".data" replaced by
 * ".index"). With the "checksum" option each partition is verified against the
 * ".checksum.<ALGO>" file beside its data file. `options` and `report` may be NULL. On success
 * `*out` is a stream the caller releases; errors while reading name the map output, the
 * partition and the byte offset (get_last_error). */
int sluice_reader_open_files(const char* const* data_paths, const char* const* index_paths,
                             int64_t count, int32_t start_partition, int32_t end_partition,
                             const SluiceReaderOptions* options, SluiceReadReport* report,
                             struct ArrowArrayStream* out);

/** A queue a host pushes fetched blocks into, from any thread, while a stream reads them (as
 * Spark's fetcher hands over one block per map output). Pushing never blocks. */
typedef struct SluiceBlockQueue SluiceBlockQueue;

SluiceBlockQueue* sluice_block_queue_new(void);
/** Pushes one map output's bytes for partitions [start_partition, end_partition): the partitions'
 * IPC streams back to back. `partition_lengths` (NULL, or end - start lengths) lets errors name
 * the partition. Without `release` the bytes are copied now; with it Sluice reads them in place
 * (batches may point into them) and calls release(release_data) once, from any thread, when it
 * no longer needs them (also when the push fails). `name` (may be NULL) names the block in
 * errors. Fails once the queue is closed or its stream released. */
int sluice_block_queue_push(SluiceBlockQueue* queue, const uint8_t* data, int64_t size,
                            int32_t start_partition, int32_t end_partition,
                            const int64_t* partition_lengths, const char* name,
                            void (*release)(void* release_data), void* release_data);
/** Reports a map output that could not be fetched: the stream fails with `message` after the
 * blocks pushed before it, or with "skip-failed" skips it. */
int sluice_block_queue_push_failure(SluiceBlockQueue* queue, const char* name, const char* message);
/** No more blocks: the stream ends after those pushed. */
void sluice_block_queue_close(SluiceBlockQueue* queue);
/** Bytes pushed and not yet taken by the stream (for a host's own back-pressure). */
int64_t sluice_block_queue_queued_bytes(const SluiceBlockQueue* queue);
/** Closes the queue and frees the host's handle; a stream reading it keeps what it needs. */
void sluice_block_queue_free(SluiceBlockQueue* queue);

/** Opens a stream over the blocks pushed into `queue`, in push order. `schema` (may be NULL;
 * consumed) is the batches' schema; without it this call waits for the first block, so push
 * first or from another thread. get_next waits for blocks not yet pushed. */
int sluice_reader_open_queue(SluiceBlockQueue* queue, struct ArrowSchema* schema,
                             const SluiceReaderOptions* options, SluiceReadReport* report,
                             struct ArrowArrayStream* out);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_SLUICE_H */
