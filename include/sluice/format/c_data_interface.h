// The Arrow C Data Interface and C Stream Interface: the ABI through which Sluice exchanges
// columnar data with any Arrow implementation in the same process (pyarrow, arrow-rs, Arrow
// Java over JNI, DuckDB, Polars...).
//
// The declarations follow the Arrow specifications (format/CDataInterface.rst and
// format/CStreamInterface.rst) member for member, so the structs are layout-compatible with every
// other copy. The include guards are the canonical ones the specification asks for, so this
// header coexists with Arrow's own abi.h or any other project's copy in the same translation unit.
//
// Sluice's import and export of these structs is declared in c_data.h.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

/// For dictionary-encoded fields: the order of the dictionary indices is meaningful.
#define ARROW_FLAG_DICTIONARY_ORDERED 1
/// The field may hold nulls.
#define ARROW_FLAG_NULLABLE 2
/// For map fields: the keys within each map entry are sorted.
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/// Describes the type (and, for the top level of a batch, the schema) of exported data.
struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

/// Describes the data of an exported array (or, as a struct array, of a record batch).
struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

/// A pull-based stream of arrays sharing one schema. Callbacks return 0 or an errno value.
struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

#ifdef __cplusplus
}
#endif
