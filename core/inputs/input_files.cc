#include "inputs/input_files.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

#include "model/tensor_reader.h"
#include "onnx/onnx_pb.h"
#include "util/checked_math.h"
#include "util/error.h"
#include "util/file_bytes.h"

namespace vq {
namespace {

[[noreturn]] void invalid(std::string_view what, const std::string& why) {
  throw Error(ErrorCode::InvalidInputFile, "input file '" + printable(what) + "': " + why);
}

std::string describe_dims(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// The raw payload size of a declared type and shape, refused when past the limits.
std::uint64_t checked_payload_bytes(const ElementTypeInfo& type, const std::vector<std::int64_t>& dims,
                                    std::string_view what) {
  const std::optional<std::uint64_t> count = checked_element_count(dims);
  if (!count) invalid(what, "shape " + describe_dims(dims) + " has more elements than 64 bits can count");
  if (*count > kMaxInputElements)
    invalid(what, "shape " + describe_dims(dims) + " has " + std::to_string(*count) + " elements, more than the limit of " +
                      std::to_string(kMaxInputElements));
  const std::optional<std::uint64_t> bytes = raw_payload_bytes(type, *count);
  if (!bytes || *bytes > kMaxInputBytes)
    invalid(what, std::string(type.name) + describe_dims(dims) + " needs more than the limit of 4 GiB");
  return *bytes;
}

// --- NumPy .npy -------------------------------------------------------------------------------

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

// The header is a Python dict literal, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
// padded with spaces and a newline. This reads exactly that grammar (numpy's writer never emits
// more), rather than anything Python would evaluate.
class NpyHeaderParser {
 public:
  NpyHeaderParser(std::string_view text, std::string_view what) : s_(text), what_(what) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!eat('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr" && !seen_descr) {
        skip_space();
        if (at_ < s_.size() && s_[at_] == '[') fail("structured dtypes (a list of fields) are not supported");
        h.descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order" && !seen_order) {
        h.fortran_order = boolean();
        seen_order = true;
      } else if (key == "shape" && !seen_shape) {
        h.shape = tuple_of_ints();
        seen_shape = true;
      } else {
        fail("the header has an unexpected or repeated key '" + printable(key) + "'");
      }
      if (!eat(',')) {
        expect('}');
        break;
      }
    }
    skip_space();  // the padding, ending in '\n'
    if (at_ != s_.size()) fail("the header has text after its dictionary");
    if (!seen_descr || !seen_order || !seen_shape) fail("the header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { invalid(what_, why); }

  void skip_space() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\t' || s_[at_] == '\r')) ++at_;
  }
  bool eat(char c) {
    skip_space();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("the header is not the dictionary numpy writes (expected '") + c + "' at byte " +
                      std::to_string(at_) + ")");
  }
  std::string string_literal() {
    skip_space();
    if (at_ >= s_.size() || (s_[at_] != '\'' && s_[at_] != '"'))
      fail("the header is not the dictionary numpy writes (expected a quoted string at byte " + std::to_string(at_) + ")");
    const char quote = s_[at_++];
    const std::size_t end = s_.find(quote, at_);
    if (end == std::string_view::npos) fail("the header has an unterminated string");
    std::string out(s_.substr(at_, end - at_));
    at_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
      if (s_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    fail("'fortran_order' is neither True nor False");
  }
  std::vector<std::int64_t> tuple_of_ints() {
    std::vector<std::int64_t> dims;
    expect('(');
    while (!eat(')')) {
      skip_space();
      if (at_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[at_]))) fail("'shape' is not a tuple of non-negative integers");
      std::int64_t d = 0;
      for (; at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_])); ++at_) {
        const int digit = s_[at_] - '0';
        if (d > (INT64_MAX - digit) / 10) fail("'shape' has a dimension of 2^63 or more");
        d = d * 10 + digit;
      }
      dims.push_back(d);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

  std::string_view s_;
  std::string_view what_;
  std::size_t at_ = 0;
};

// numpy's dtype string ('<f4', '|u1', '|b1') to an ONNX element type, or a refusal that says why.
const ElementTypeInfo& npy_element_type(const std::string& descr, std::string_view what) {
  static constexpr std::pair<const char*, ElementType> kTypes[] = {
      {"f2", ElementType::Float16}, {"f4", ElementType::Float32}, {"f8", ElementType::Float64},
      {"i1", ElementType::Int8},    {"i2", ElementType::Int16},   {"i4", ElementType::Int32},
      {"i8", ElementType::Int64},   {"u1", ElementType::Uint8},   {"u2", ElementType::Uint16},
      {"u4", ElementType::Uint32},  {"u8", ElementType::Uint64},  {"b1", ElementType::Bool},
  };
  const std::string shown = "'" + printable(descr) + "'";
  if (descr.size() >= 2 && descr[1] == 'O')
    invalid(what, "dtype " + shown + " is an object array (pickled Python objects), which is not supported");
  const std::string code = descr.empty() ? "" : descr.substr(1);
  for (const auto& [name, type] : kTypes) {
    if (code != name) continue;
    const ElementTypeInfo& info = element_type_info(type);
    // One-byte types have no byte order; wider ones must say little-endian.
    if (info.bits > 8 && descr[0] == '>')
      invalid(what, "dtype " + shown + " is big-endian, which is not supported (save it with .astype('<" + code + "'))");
    if (info.bits > 8 ? descr[0] != '<' : std::strchr("<>|=", descr[0]) == nullptr)
      invalid(what, "dtype " + shown + " does not say its byte order as numpy writes it ('<" + code + "')");
    return info;
  }
  invalid(what, "dtype " + shown + " is not supported (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1)");
}

std::uint64_t read_le(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

bool ends_with(const std::string& path, std::string_view suffix) {
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

HostTensor read_npy(ByteView bytes, std::string_view what) {
  static constexpr std::uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (bytes.size < sizeof kMagic || std::memcmp(bytes.data, kMagic, sizeof kMagic) != 0)
    invalid(what, "not a .npy file (no \\x93NUMPY magic)");
  if (bytes.size < 8) invalid(what, "truncated: the file ends inside its format version");
  const int major = bytes.data[6];
  if (major < 1 || major > 3)
    invalid(what, "npy format version " + std::to_string(major) + "." + std::to_string(bytes.data[7]) +
                      " is not supported (1.0, 2.0 and 3.0 are)");
  // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4.
  const int length_bytes = major == 1 ? 2 : 4;
  const std::size_t header_start = 8 + static_cast<std::size_t>(length_bytes);
  if (bytes.size < header_start) invalid(what, "truncated: the file ends inside its header length");
  const std::uint64_t header_length = read_le(bytes.data + 8, length_bytes);
  if (header_length > bytes.size - header_start)
    invalid(what, "truncated: the header says it is " + std::to_string(header_length) + " bytes but the file has " +
                      std::to_string(bytes.size - header_start) + " after the header length");
  const std::string_view header_text(reinterpret_cast<const char*>(bytes.data + header_start),
                                     static_cast<std::size_t>(header_length));
  const NpyHeader header = NpyHeaderParser(header_text, what).parse();

  HostTensor t;
  t.type = &npy_element_type(header.descr, what);
  if (header.fortran_order)
    invalid(what, "the array is in Fortran order, which is not supported (save np.ascontiguousarray(a))");
  t.dims = header.shape;
  const std::uint64_t need = checked_payload_bytes(*t.type, t.dims, what);
  const std::size_t data_start = header_start + static_cast<std::size_t>(header_length);
  const std::uint64_t have = bytes.size - data_start;
  if (have != need)
    invalid(what, "its header declares " + printable(header.descr) + " " + describe_dims(t.dims) + " (" + std::to_string(need) +
                      " bytes of data) but the file holds " + std::to_string(have) + " (" +
                      (have < need ? "too short" : "too long") + ")");
  t.bytes.assign(bytes.data + data_start, bytes.data + bytes.size);
  if (t.type->type == ElementType::Bool) {
    const auto bad = std::find_if(t.bytes.begin(), t.bytes.end(), [](std::uint8_t b) { return b > 1; });
    if (bad != t.bytes.end())
      invalid(what, "bool element " + std::to_string(bad - t.bytes.begin()) + " is byte " + std::to_string(*bad) +
                        ", neither 0 nor 1");
  }
  return t;
}

HostTensor read_tensor_pb(ByteView bytes, std::string_view what) {
  // Protobuf parses at most 2 GiB (its sizes are int).
  if (bytes.size > static_cast<std::size_t>(INT32_MAX)) invalid(what, "larger than the 2 GiB a TensorProto can be");
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes.data, static_cast<int>(bytes.size)))
    invalid(what, "not an ONNX TensorProto (the protobuf does not parse)");
  const ElementTypeInfo* type = element_type_info(proto.data_type());
  if (!type)
    invalid(what, proto.data_type() == 0 ? std::string("not an ONNX TensorProto (it has no element type)")
                                         : "element type " + std::to_string(proto.data_type()) + " is not an ONNX element type");
  if (type->kind == ElementKind::String) invalid(what, "string tensors are not supported as model inputs");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0)
    invalid(what, "the tensor stores its values in external data, which is not supported for input files");
  const std::vector<std::int64_t> dims(proto.dims().begin(), proto.dims().end());
  if (std::any_of(dims.begin(), dims.end(), [](std::int64_t d) { return d < 0; }))
    invalid(what, "negative dimension in " + describe_dims(dims));
  checked_payload_bytes(*type, dims, what);

  // The model loader's reader converts typed fields (float_data, int32_data, ...) to raw layout
  // and checks their counts. Unknown fields are dropped first: the reader takes one of them for a
  // reference into a model file, which an input file has none of.
  proto.mutable_unknown_fields()->clear();
  TensorReadContext ctx;
  ctx.limits.max_elements_per_tensor = kMaxInputElements;
  Tensor read;
  try {
    read = read_tensor(proto, ctx, "input file '" + printable(what) + "'");
  } catch (const Error& e) {
    throw Error(ErrorCode::InvalidInputFile, e.what());
  }
  HostTensor t;
  t.type = read.type;
  t.dims = std::move(read.dims);
  if (read.storage == TensorStorage::Inline)
    t.bytes.assign(read.inline_bytes.data, read.inline_bytes.data + read.inline_bytes.size);
  else
    t.bytes = std::move(read.converted);  // Converted, or Empty (zero elements)
  return t;
}

HostTensor read_input_bytes(ByteView bytes, const std::string& file_name) {
  if (ends_with(file_name, ".npy")) return read_npy(bytes, file_name);
  if (ends_with(file_name, ".pb")) return read_tensor_pb(bytes, file_name);
  invalid(file_name, "not a .npy or .pb file (input files are NumPy .npy or ONNX TensorProto .pb, by extension)");
}

HostTensor read_input_file(const std::string& path) {
  if (!ends_with(path, ".npy") && !ends_with(path, ".pb")) return read_input_bytes({}, path);  // refused by name
  const SharedBytes bytes = read_file_bytes(path);
  return read_input_bytes(bytes.view(), path);
}

}  // namespace vq
