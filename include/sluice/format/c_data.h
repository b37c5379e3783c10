// Import and export of the Arrow C Data and C Stream Interfaces (c_data_interface.h).
//
// This is how columnar data enters and leaves Sluice without a copy: a map task hands its batches
// over as ArrowArrays, and the reduce side hands batches back the same way (DESIGN.md, section 1).
//
// Import borrows: the buffers of an imported ArrowArray are viewed in place. The resulting
// RecordBatch keeps the ArrowArray in its owners and calls its release callback exactly once, when
// the last copy or slice of the batch is destroyed. Null counts a producer reports as -1 are
// computed. A dictionary-encoded field is imported as DataType::Dictionary: its indices and its
// dictionary (the ArrowArray's `dictionary`) are borrowed like any buffer, and export hands them
// back the same way.
//
// Import validates: a malformed struct (unknown format string, wrong n_buffers or n_children,
// negative length or offset, missing buffers, offsets out of range, a released struct, a bad
// dictionary index) is rejected with an error naming the field by its path ("column 'a.b.item'"),
// the struct member ("ArrowArray.n_buffers"), what was expected and what was found. Layout checks
// that do not depend on C are ValidateArray's (array_validate.h). The C interface carries no buffer
// sizes, so the importer derives each buffer's size from the layout (the spec obliges producers
// to provide that much); a binary array's data size is its last offset.
//
// What the importer accepts where the spec is loose:
// - A validity buffer may be NULL whenever null_count is 0 or -1 (then there are no nulls).
// - Any other buffer may be NULL only when the array is empty (length 0); the view then gets a
//   static zeroed buffer, so an imported array never has a missing offsets or values buffer.
//   Binary data may also be NULL when every offset is 0 (all values empty).
// - For the null type the null count is the length, whatever the producer says.
// - A struct's offset applies to its children (as the spec says); the importer pushes it down,
//   since Sluice aligns struct children with the struct view. Children must therefore hold at
//   least offset + length rows.
// - Metadata is kept, the schema's and every field's at every level: an extension array is its
//   storage type with the field metadata that names the extension, and export hands both back.
// - Ownership: every Import function takes ownership of the struct it is given, also when it
//   fails, and marks it released (the caller's struct may be discarded afterwards).
//
// Export lends: an exported ArrowArray points into the batch's buffers and keeps the batch's owners
// and schema alive until the consumer releases it. Every child is independently releasable, so
// consumers may move columns out. Each node of the exported tree is one allocation.
#pragma once

#include <memory>

#include "sluice/base/result.h"
#include "sluice/base/status.h"
#include "sluice/format/c_data_interface.h"
#include "sluice/format/record_batch.h"
#include "sluice/format/record_batch_reader.h"
#include "sluice/format/schema.h"

namespace sluice {

/// Imports a record batch schema: a struct ("+s") whose children are the columns, with the
/// top-level metadata. Dictionary-encoded fields get the dictionary type. Releases `schema`.
Result<SchemaPtr> ImportSchema(ArrowSchema* schema);

/// Imports one field: its name, nullability and type. Releases `schema`.
Result<Field> ImportField(ArrowSchema* schema);

/// Imports the type of one field. Releases `schema`.
Result<TypePtr> ImportType(ArrowSchema* schema);

/// Imports a struct array whose children are the columns of `schema`, without copying buffers.
/// The batch's owners keep `array` alive and release it when the last view of it is destroyed.
/// A column whose ArrowArray has a dictionary must have a dictionary type in `schema` (as
/// ImportSchema gives it). Takes ownership of `array`.
Result<RecordBatch> ImportRecordBatch(ArrowArray* array, const SchemaPtr& schema);

/// Imports a struct array described by `schema`; both are consumed (the schema is released at
/// once, the array when the batch is gone).
Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);

/// Wraps a C stream as a reader. Takes ownership of `stream` and releases it when the reader is
/// destroyed. The schema is read at once; errors from get_schema or get_next carry the stream's
/// get_last_error text. Dictionary-encoded columns are kept.
Result<std::unique_ptr<RecordBatchReader>> ImportArrayStream(ArrowArrayStream* stream);

/// Exports a type as an unnamed, nullable field.
Status ExportType(const DataType& type, ArrowSchema* out);

/// Exports one field: name, nullability flag and type.
Status ExportField(const Field& field, ArrowSchema* out);

/// Exports a schema as a struct ("+s") whose children are the fields, with the schema's metadata.
Status ExportSchema(const Schema& schema, ArrowSchema* out);

/// Exports a batch as a struct array of its columns, zero-copy. The exported array keeps the
/// batch's owners and schema alive until it (or the last child moved out of it) is released.
Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out);

/// Exports a reader as a C stream: get_schema exports the reader's schema, get_next its next batch
/// (a released array at the end), get_last_error the message of the last failure. The stream owns
/// the reader and destroys it on release.
Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out);

}  // namespace sluice
