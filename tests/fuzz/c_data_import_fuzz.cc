// Fuzzes the Arrow C Data importer with schemas and arrays built from the input: every format the
// specification names (those Sluice refuses too), children, dictionaries, lengths, offsets, null
// counts and buffer counts right or wrong, offsets and bitmaps of arbitrary values.
//
// The C Data Interface carries no buffer sizes: a producer promises that each buffer holds what
// the array's length, offset and type imply. This harness keeps that promise for the sizes (every
// buffer is allocated as the declared layout says, data buffers as large as the largest offset
// that points into them) and breaks everything else, so whatever the importer reads that a
// correct producer would provide is in bounds, and any other read is a sanitizer report. What
// the importer accepts must pass ValidateArray, survive an IPC round trip unchanged, partition,
// and export and import again unchanged.
//
// Input: a program read byte by byte (0 when it runs out): the top-level struct's column count
// and length, then each node: a format (index into kFormats), its length, offset, null count
// kind, buffer count and child count perturbations, whether it has a validity bitmap, a
// dictionary and metadata, and the bytes of its bitmaps, values, offsets and metadata.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/format/array_compare.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/c_data.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/partition/partitioner.h"

namespace {

// Formats and the physical layout a correct producer gives them. `width` is bytes per value of
// buffer 1 (0: none; -1: bits; -4, -8: 32- or 64-bit offsets followed by a data buffer; -16:
// 16-byte views, one variadic data buffer and the buffer of its size; -32, -64: a list view's
// 32- or 64-bit offsets and sizes, in any order).
struct Format {
  const char* text;
  int buffers;
  int width;
  int children;  // -1: any (struct)
};

constexpr Format kFormats[] = {
    {"n", 0, 0, 0},           {"b", 2, -1, 0},
    {"c", 2, 1, 0},           {"C", 2, 1, 0},
    {"s", 2, 2, 0},           {"S", 2, 2, 0},
    {"i", 2, 4, 0},           {"I", 2, 4, 0},
    {"l", 2, 8, 0},           {"L", 2, 8, 0},
    {"f", 2, 4, 0},           {"g", 2, 8, 0},
    {"z", 3, -4, 0},          {"Z", 3, -8, 0},
    {"u", 3, -4, 0},          {"U", 3, -8, 0},
    {"tdD", 2, 4, 0},         {"tss:", 2, 8, 0},
    {"tsm:UTC", 2, 8, 0},     {"tsn:Europe/Paris", 2, 8, 0},
    {"d:11,2", 2, 16, 0},     {"d:38,10", 2, 16, 0},
    {"w:5", 2, 5, 0},         {"+l", 2, -4, 1},
    {"+L", 2, -8, 1},         {"+s", 1, 0, -1},
    {"+m", 2, -4, 1},         {"e", 2, 2, 0},
    {"tdm", 2, 8, 0},         {"ttu", 2, 8, 0},
    {"tDs", 2, 8, 0},         {"tiM", 2, 4, 0},
    {"vu", 4, -16, 0},        {"+w:2", 1, 0, 1},
    {"+r", 0, 0, 2},          {"+ud:0,1", 2, 4, 2},
    {"+us:0", 1, 1, 1},       {"d:5,2,256", 2, 32, 0},
    {"d:4,1,32", 2, 4, 0},    {"+vl", 3, -32, 1},
    {"zz", 3, -4, 0},         {"tts", 2, 4, 0},
    {"ttm", 2, 4, 0},         {"ttn", 2, 8, 0},
    {"tDn", 2, 8, 0},         {"tiD", 2, 8, 0},
    {"tin", 2, 16, 0},        {"d:15,3,64", 2, 8, 0},
    {"d:60,5,256", 2, 32, 0}, {"+w:3", 1, 0, 1},
    {"vz", 4, -16, 0},        {"+vL", 3, -64, 1},
};
constexpr int kFormatCount = static_cast<int>(sizeof(kFormats) / sizeof(kFormats[0]));
constexpr int kMaxDepth = 4;
constexpr int kMaxNodes = 64;

class Program {
 public:
  Program(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return position_ < size_ ? data_[position_++] : 0; }
  // Arbitrary bytes for a buffer (zeros once the program runs out).
  void Fill(uint8_t* out, size_t size) {
    for (size_t i = 0; i < size; ++i) out[i] = Byte();
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// Owns everything the structs point to, for one input; the release callbacks only mark.
struct Arena {
  std::vector<std::unique_ptr<sluice::AlignedBuffer>> buffers;
  std::vector<std::unique_ptr<ArrowSchema>> schemas;
  std::vector<std::unique_ptr<ArrowArray>> arrays;
  std::vector<std::unique_ptr<std::vector<ArrowSchema*>>> schema_children;
  std::vector<std::unique_ptr<std::vector<ArrowArray*>>> array_children;
  std::vector<std::unique_ptr<std::vector<const void*>>> buffer_lists;
  std::vector<std::unique_ptr<std::string>> names;
  int nodes = 0;

  uint8_t* Buffer(size_t size) {
    buffers.push_back(std::make_unique<sluice::AlignedBuffer>());
    buffers.back()->Resize(static_cast<int64_t>(size) + 8);  // never null, even when empty
    std::memset(buffers.back()->data(), 0, size + 8);
    return buffers.back()->data();
  }
};

// Metadata in the C interface's encoding (an int32 pair count, then each key and value after its
// int32 length), drawn from the program: keys that name extension types or hold NUL bytes, and
// now and then a negative count or length, which the importer must refuse. The buffer is as long
// as the encoding says, as a correct producer's is.
const char* Metadata(Program& program, Arena& arena) {
  std::string encoded;
  auto append_int32 = [&encoded](int32_t value) {
    encoded.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  const uint8_t shape = program.Byte();
  if ((shape & 0x70) == 0x70) {
    append_int32(-1 - (shape & 3));  // a negative pair count
  } else {
    const int pairs = shape % 4;
    append_int32(pairs);
    static const char* const kKeys[] = {"ARROW:extension:name", "ARROW:extension:metadata", "unit",
                                        "nul\0key"};
    for (int i = 0; i < pairs; ++i) {
      const uint8_t key_choice = program.Byte();
      std::string key(kKeys[key_choice % 4],
                      key_choice % 4 == 3 ? 7 : std::strlen(kKeys[key_choice % 4]));
      if (key_choice & 0x80) {
        key.assign(static_cast<size_t>(program.Byte() % 12), '\0');
        for (char& c : key) c = static_cast<char>(program.Byte());
      }
      if ((key_choice & 0x60) == 0x60) {  // a negative length ends the encoding
        append_int32(-1);
        break;
      }
      append_int32(static_cast<int32_t>(key.size()));
      encoded += key;
      std::string value(static_cast<size_t>(program.Byte() % 16), '\0');
      for (char& c : value) c = static_cast<char>(program.Byte());
      append_int32(static_cast<int32_t>(value.size()));
      encoded += value;
    }
  }
  uint8_t* buffer = arena.Buffer(encoded.size());
  // Binary metadata (int32 lengths and bytes), not a C string: no terminator.
  // NOLINTNEXTLINE(bugprone-not-null-terminated-result)
  std::memcpy(buffer, encoded.data(), encoded.size());
  return reinterpret_cast<const char*>(buffer);
}

void ReleaseSchema(ArrowSchema* schema) {
  schema->release = nullptr;
}
void ReleaseArray(ArrowArray* array) {
  array->release = nullptr;
}

// Builds the run ends of a run_end_encoded node of `slots` logical slots: int16, int32 or int64,
// strictly increasing and covering the slots (now and then not: a step of zero, a first run end
// of zero, a null count). Returns how many runs it made.
int64_t BuildRunEnds(Program& program, Arena& arena, int64_t slots, ArrowSchema* schema,
                     ArrowArray* array) {
  arena.nodes += 1;
  static constexpr const char* kRunEndFormats[] = {"s", "i", "l"};
  static constexpr int64_t kWidths[] = {2, 4, 8};
  const uint8_t choice = program.Byte();
  const size_t kind = choice % 3;
  const bool malformed = (choice & 0xf0) == 0xf0;
  const int64_t offset = (choice & 8) ? program.Byte() % 3 : 0;
  std::vector<int64_t> ends;
  int64_t end = 0;
  while (end < slots && ends.size() < 64) {
    end += 1 + program.Byte() % 4;
    ends.push_back(std::min(end, slots));
  }
  if (malformed && !ends.empty()) {
    const size_t at = program.Byte() % ends.size();
    ends[at] = at > 0 ? ends[at - 1] : 0;
  }
  const auto runs = static_cast<int64_t>(ends.size());
  const int64_t width = kWidths[kind];
  uint8_t* values = arena.Buffer(static_cast<size_t>((offset + runs) * width));
  for (int64_t i = 0; i < runs; ++i) {
    uint8_t* to = values + (offset + i) * width;
    const int64_t value = ends[static_cast<size_t>(i)];
    if (kind == 0) {
      const auto narrow = static_cast<int16_t>(value);
      std::memcpy(to, &narrow, 2);
    } else if (kind == 1) {
      const auto narrow = static_cast<int32_t>(value);
      std::memcpy(to, &narrow, 4);
    } else {
      std::memcpy(to, &value, 8);
    }
  }
  arena.names.push_back(std::make_unique<std::string>("run_ends"));
  arena.buffer_lists.push_back(std::make_unique<std::vector<const void*>>(2, nullptr));
  (*arena.buffer_lists.back())[1] = values;
  *schema = ArrowSchema{};
  schema->format = kRunEndFormats[kind];
  schema->name = arena.names.back()->c_str();
  schema->release = ReleaseSchema;
  *array = ArrowArray{};
  array->length = runs;
  array->offset = offset;
  array->null_count = malformed && (choice & 4) ? 1 : 0;
  array->n_buffers = 2;
  array->buffers = arena.buffer_lists.back()->data();
  array->release = ReleaseArray;
  return runs;
}

// Builds one node (schema and array together). `length_hint` is the length a correct producer
// would give it (a struct child's parent length), which the program may change.
void BuildNode(Program& program, Arena& arena, int depth, int64_t length_hint, ArrowSchema* schema,
               ArrowArray* array) {
  arena.nodes += 1;
  const bool deep = depth >= kMaxDepth || arena.nodes >= kMaxNodes;
  int index = program.Byte() % kFormatCount;
  if (deep && kFormats[index].children != 0) index = 8;  // "l"
  const Format& format = kFormats[index];

  const uint8_t shape = program.Byte();
  int64_t length = length_hint;
  if ((shape & 3) == 1) length = program.Byte() % 48;
  if ((shape & 3) == 2 && (shape & 4)) length = -1 - (program.Byte() % 4);  // negative
  const int64_t offset = (shape & 8) ? program.Byte() % 9 : 0;
  const int64_t slots = length >= 0 ? offset + length : 0;
  const bool has_validity = (shape & 16) != 0;
  const int null_count_kind = (shape >> 5) & 3;  // unknown, right, zero, wrong
  const uint8_t perturb = program.Byte();
  int buffer_count = format.buffers;
  if ((perturb & 7) == 1) buffer_count += 1;
  if ((perturb & 7) == 2 && buffer_count > 0) buffer_count -= 1;

  arena.names.push_back(std::make_unique<std::string>("f" + std::to_string(arena.nodes)));
  *schema = ArrowSchema{};
  schema->format = format.text;
  schema->name = arena.names.back()->c_str();
  schema->flags = (perturb & 8) ? 0 : 2;  // nullable
  if (perturb & 128) schema->metadata = Metadata(program, arena);
  schema->release = ReleaseSchema;
  *array = ArrowArray{};
  array->length = length;
  array->offset = offset;
  array->release = ReleaseArray;

  // Buffers, as large as the declared layout says.
  arena.buffer_lists.push_back(std::make_unique<std::vector<const void*>>(
      static_cast<size_t>(std::max(buffer_count, 3)), nullptr));
  std::vector<const void*>& buffers = *arena.buffer_lists.back();
  int64_t nulls = 0;
  const bool is_union = std::strncmp(format.text, "+u", 2) == 0;
  if (is_union) {
    // No validity: the type ids (buffer 0), mostly ones the format names, and a dense union's
    // offsets (buffer 1), mostly inside a child of 8 rows.
    uint8_t* ids = arena.Buffer(static_cast<size_t>(slots));
    for (int64_t i = 0; i < slots; ++i) ids[i] = static_cast<uint8_t>(program.Byte() % 3);
    buffers[0] = ids;
    if (format.buffers == 2) {
      uint8_t* offsets = arena.Buffer(static_cast<size_t>(slots) * 4);
      for (int64_t i = 0; i < slots; ++i) {
        const int32_t offset = static_cast<int8_t>(program.Byte()) % 9;
        std::memcpy(offsets + i * 4, &offset, 4);
      }
      buffers[1] = offsets;
    }
  } else if (format.buffers >= 1 && has_validity) {
    const size_t bytes = static_cast<size_t>((slots + 7) / 8);
    uint8_t* bitmap = arena.Buffer(bytes);
    program.Fill(bitmap, bytes);
    for (int64_t i = offset; i < slots; ++i) nulls += ((bitmap[i / 8] >> (i % 8)) & 1) == 0;
    buffers[0] = bitmap;
  }
  int64_t child_length_needed = is_union && format.buffers == 2 ? 8 : 0;
  if (is_union) {
    // (buffers made above)
  } else if (format.width == -1) {
    uint8_t* bits = arena.Buffer(static_cast<size_t>((slots + 7) / 8));
    program.Fill(bits, static_cast<size_t>((slots + 7) / 8));
    buffers[1] = bits;
  } else if (format.width > 0) {
    const size_t bytes = static_cast<size_t>(slots) * static_cast<size_t>(format.width);
    uint8_t* values = arena.Buffer(bytes);
    program.Fill(values, std::min<size_t>(bytes, 256));
    if (format.buffers >= 2) buffers[1] = values;
  } else if (format.width == -16) {
    // Views of 0..23 bytes: inline, or into the one data buffer at an offset from the program
    // (past its end at times), with the prefix copied or not.
    constexpr size_t kDataBytes = 64;
    uint8_t* data = arena.Buffer(kDataBytes);
    program.Fill(data, kDataBytes);
    uint8_t* views = arena.Buffer(static_cast<size_t>(slots) * 16);
    for (int64_t i = 0; i < slots; ++i) {
      uint8_t* view = views + i * 16;
      const int32_t size = program.Byte() % 24;
      std::memcpy(view, &size, 4);
      if (size <= 12) {
        program.Fill(view + 4, static_cast<size_t>(size));
        continue;
      }
      const int32_t start = program.Byte() % 56;
      const int32_t buffer = (perturb & 64) ? program.Byte() % 2 : 0;
      std::memcpy(view + 4, data + start, 4);
      if (perturb & 32) view[4] ^= program.Byte();
      std::memcpy(view + 8, &buffer, 4);
      std::memcpy(view + 12, &start, 4);
    }
    auto* sizes = reinterpret_cast<int64_t*>(arena.Buffer(8));
    // A smaller size than the buffer's, never a larger one: a producer that overstates a
    // buffer cannot be caught by any importer.
    *sizes = (perturb & 16) ? program.Byte() % (kDataBytes + 1) : static_cast<int64_t>(kDataBytes);
    buffers[1] = views;
    buffers[2] = data;
    if (buffers.size() > 3) buffers[3] = sizes;
  } else if (format.width == -32 || format.width == -64) {
    // Offsets and sizes of 0..7 (negative at times), out of order and overlapping: the child is
    // given 8 elements, fewer at times.
    const size_t width = format.width == -64 ? 8 : 4;
    uint8_t* offsets = arena.Buffer(static_cast<size_t>(slots) * width);
    uint8_t* sizes = arena.Buffer(static_cast<size_t>(slots) * width);
    for (int64_t i = 0; i < slots; ++i) {
      const int64_t entries[2] = {static_cast<int8_t>(program.Byte()) % 8,
                                  static_cast<int8_t>(program.Byte()) % 8};
      for (int e = 0; e < 2; ++e) {
        uint8_t* to = (e == 0 ? offsets : sizes) + i * static_cast<int64_t>(width);
        if (width == 8) {
          std::memcpy(to, &entries[e], 8);
        } else {
          const auto narrow = static_cast<int32_t>(entries[e]);
          std::memcpy(to, &narrow, 4);
        }
      }
    }
    buffers[1] = offsets;
    buffers[2] = sizes;
    child_length_needed = (perturb & 32) ? program.Byte() % 9 : 8;
  } else if (format.width < 0) {
    const bool wide = format.width == -8;
    const size_t count = static_cast<size_t>(slots) + 1;
    uint8_t* raw = arena.Buffer(count * (wide ? 8 : 4));
    int64_t value = (perturb & 16) ? -static_cast<int64_t>(program.Byte() % 3) : 0;
    int64_t largest = 0;
    for (size_t i = 0; i < count; ++i) {
      if (i > 0) {
        const uint8_t step = program.Byte();
        value += (step & 0x80) && (perturb & 32) ? -(step & 7) : (step & 7);
      }
      largest = std::max(largest, value);
      if (wide) {
        std::memcpy(raw + i * 8, &value, 8);
      } else {
        const auto narrow = static_cast<int32_t>(value);
        std::memcpy(raw + i * 4, &narrow, 4);
      }
    }
    buffers[1] = raw;
    if (format.children == 0) {
      uint8_t* bytes = arena.Buffer(static_cast<size_t>(largest));
      program.Fill(bytes, std::min<size_t>(static_cast<size_t>(largest), 64));
      buffers[2] = bytes;
    } else {
      child_length_needed = largest;
    }
  }
  if (length >= 0 && format.buffers >= 1) {
    switch (null_count_kind) {
      case 0:
        array->null_count = -1;
        break;
      case 1:
        array->null_count = nulls;
        break;
      case 2:
        array->null_count = 0;
        break;
      default:
        array->null_count = nulls + 1 + program.Byte() % 3;
        break;
    }
  } else {
    array->null_count = format.buffers == 0 && length > 0 ? length : 0;
  }
  array->n_buffers = buffer_count;
  array->buffers = buffers.data();

  // Children: as many as the format has (or not), of lengths a correct producer would give.
  int children = format.children;
  if (children < 0) children = 1 + program.Byte() % 3;
  if ((perturb & 7) == 3) children += 1;
  if ((perturb & 7) == 4 && children > 0) children -= 1;
  if (deep) children = std::min(children, 0);
  arena.schema_children.push_back(std::make_unique<std::vector<ArrowSchema*>>());
  arena.array_children.push_back(std::make_unique<std::vector<ArrowArray*>>());
  auto& schema_children = *arena.schema_children.back();
  auto& array_children = *arena.array_children.back();
  const bool run_end_encoded = std::strcmp(format.text, "+r") == 0;
  int64_t runs = 0;
  for (int c = 0; c < children; ++c) {
    arena.schemas.push_back(std::make_unique<ArrowSchema>());
    arena.arrays.push_back(std::make_unique<ArrowArray>());
    if (run_end_encoded && c == 0) {  // run ends as a producer makes them, mostly
      runs = BuildRunEnds(program, arena, slots, arena.schemas.back().get(),
                          arena.arrays.back().get());
      schema_children.push_back(arena.schemas.back().get());
      array_children.push_back(arena.arrays.back().get());
      continue;
    }
    if (run_end_encoded) child_length_needed = runs;  // the values: one per run
    // A struct's (and a sparse union's) children hold its slots; a fixed-size list's ("+w:N")
    // N elements a slot.
    const bool fixed_size_list = std::strncmp(format.text, "+w:", 3) == 0;
    const bool sparse_union = std::strncmp(format.text, "+us:", 4) == 0;
    const int64_t hint = format.children < 0 || sparse_union ? slots
                         : fixed_size_list                   ? slots * std::atoi(format.text + 3)
                                                             : child_length_needed;
    BuildNode(program, arena, depth + 1, hint, arena.schemas.back().get(),
              arena.arrays.back().get());
    schema_children.push_back(arena.schemas.back().get());
    array_children.push_back(arena.arrays.back().get());
  }
  schema->n_children = children;
  schema->children = schema_children.data();
  array->n_children = children;
  array->children = array_children.data();

  // A dictionary for an integer column: its values another node.
  if (!deep && index >= 1 && index <= 9 && (perturb & 64)) {
    arena.schemas.push_back(std::make_unique<ArrowSchema>());
    arena.arrays.push_back(std::make_unique<ArrowArray>());
    BuildNode(program, arena, depth + 1, program.Byte() % 16, arena.schemas.back().get(),
              arena.arrays.back().get());
    schema->dictionary = arena.schemas.back().get();
    array->dictionary = arena.arrays.back().get();
  }
}

void ExpectUsable(const sluice::RecordBatch& batch) {
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    if (!sluice::ValidateArray(batch.column(c), "fuzz").ok()) __builtin_trap();
  }
  // An IPC round trip gives the same batch.
  auto encoder = sluice::SegmentEncoder::Make(batch.schema());
  if (encoder.ok()) {
    sluice::AlignedBuffer segment;
    const auto schema_message = (*encoder)->schema_message();
    segment.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
    if ((*encoder)->AppendRecordBatch(batch, &segment).ok()) {
      const uint8_t end[8] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
      segment.Append(end, 8);
      sluice::SegmentDecoder decoder;
      if (!decoder.Begin(segment.data(), segment.size(), nullptr, "round trip").ok()) {
        __builtin_trap();
      }
      auto decoded = decoder.Next();
      if (!decoded.ok() || !decoded->has_value()) __builtin_trap();
      std::string difference;
      if (!sluice::BatchesEqual(**decoded, batch, &difference)) __builtin_trap();
      if (!(*decoded)->schema()->Equals(*batch.schema(), /*check_metadata=*/true)) {
        __builtin_trap();
      }
    }
  }
  // Hash partitioning reads every value of the first column.
  if (batch.num_columns() > 0) {
    sluice::PartitionerOptions options;
    options.kind = sluice::PartitionKind::kHash;
    options.partition_count = 7;
    options.key_columns = {0};
    auto partitioner = sluice::MakePartitioner(options, *batch.schema());
    if (partitioner.ok()) {
      std::vector<uint32_t> ids(static_cast<size_t>(batch.num_rows()));
      if ((*partitioner)->Partition(batch, ids.data()).ok()) {
        for (uint32_t id : ids) {
          if (id >= 7) __builtin_trap();
        }
      }
    }
  }
  // Exported and imported again: the same batch.
  ArrowSchema schema;
  ArrowArray array;
  if (!sluice::ExportSchema(*batch.schema(), &schema).ok()) __builtin_trap();
  if (!sluice::ExportRecordBatch(batch, &array).ok()) __builtin_trap();
  auto again = sluice::ImportRecordBatch(&array, &schema);
  if (!again.ok() || !sluice::BatchesEqual(*again, batch)) __builtin_trap();
  // Metadata, every field's, survives the export and the IPC round trip exactly.
  if (!again->schema()->Equals(*batch.schema(), /*check_metadata=*/true)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Program program(data, size);
  Arena arena;
  const int columns = program.Byte() % 5;
  const int64_t length = program.Byte() % 40;
  ArrowSchema root_schema{};
  ArrowArray root_array{};
  std::vector<ArrowSchema*> schema_children;
  std::vector<ArrowArray*> array_children;
  for (int c = 0; c < columns; ++c) {
    arena.schemas.push_back(std::make_unique<ArrowSchema>());
    arena.arrays.push_back(std::make_unique<ArrowArray>());
    BuildNode(program, arena, 1, length, arena.schemas.back().get(), arena.arrays.back().get());
    schema_children.push_back(arena.schemas.back().get());
    array_children.push_back(arena.arrays.back().get());
  }
  const void* root_buffers[1] = {nullptr};
  root_schema.format = "+s";
  root_schema.name = "";
  root_schema.n_children = columns;
  root_schema.children = schema_children.data();
  root_schema.release = ReleaseSchema;
  root_array.length = length;
  root_array.n_buffers = 1;
  root_array.buffers = root_buffers;
  root_array.n_children = columns;
  root_array.children = array_children.data();
  root_array.release = ReleaseArray;

  auto schema = sluice::ImportSchema(&root_schema);
  if (!schema.ok()) {
    if (root_array.release != nullptr) root_array.release(&root_array);
    return 0;
  }
  {
    auto batch = sluice::ImportRecordBatch(&root_array, *schema);
    if (batch.ok()) ExpectUsable(*batch);
  }
  return 0;
}
