#include "worker/tensor_blob.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "integrity/tensor_guard.hpp"

namespace kbench {

nlohmann::json put_tensor(const at::Tensor& tensor, std::string& blob, bool blinded) {
  nlohmann::json header = {{"dtype", int(tensor.scalar_type())},
                           {"dtype_name", std::string(c10::toString(tensor.scalar_type()))},
                           {"shape", tensor.sizes().vec()}};
  if (blinded) {
    header["blinded"] = true;
    return header;
  }
  const at::Tensor t = tensor.detach().to(at::kCPU).contiguous();
  header["offset"] = blob.size();
  header["bytes"] = t.nbytes();
  blob.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
  return header;
}

at::Tensor get_tensor(const nlohmann::json& header, const std::string& bytes, std::size_t base) {
  const int code = header.at("dtype").get<int>();
  if (code < 0 || code >= int(c10::ScalarType::NumOptions))
    throw std::runtime_error(fmt::format("unknown dtype {}", code));
  const auto dtype = static_cast<c10::ScalarType>(code);
  if (c10::toString(dtype) != header.at("dtype_name").get<std::string>())
    throw std::runtime_error("written by another torch (dtype names differ)");
  const auto shape = header.at("shape").get<std::vector<int64_t>>();
  // Blinded: its shape and dtype only, on the meta device. No memory: a poisoned host copy of
  // every expected output cost a large-output job GBs of page faults in each process that
  // decoded the work; and anything that reads its values throws instead of comparing garbage.
  if (header.value("blinded", false)) return at::empty(shape, at::TensorOptions().dtype(dtype).device(at::kMeta));
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(dtype).device(at::kCPU));
  const auto offset = header.at("offset").get<std::size_t>();
  const auto size = header.at("bytes").get<std::size_t>();
  if (t.nbytes() != size) throw std::runtime_error("a tensor's size disagrees with its shape");
  if (offset > bytes.size() - base || size > bytes.size() - base - offset)
    throw std::runtime_error("truncated tensor data");
  if (size > 0) std::memcpy(t.data_ptr(), bytes.data() + base + offset, size);
  return t;
}

std::string frame_document(const char* magic, const nlohmann::json& header, const std::string& blob) {
  const std::string text = header.dump();
  const std::string length = fmt::format("{}{}\n", magic, text.size());
  std::string framed;
  framed.reserve(length.size() + text.size() + blob.size());  // GBs at full size: one copy
  framed.append(length).append(text).append(blob);
  return framed;
}

std::pair<nlohmann::json, std::size_t> unframe_document(const char* magic, const std::string& bytes,
                                                        const char* what) {
  const std::size_t length_at = std::strlen(magic);
  if (bytes.compare(0, length_at, magic) != 0) throw std::runtime_error(fmt::format("not a {} file", what));
  const auto newline = bytes.find('\n', length_at);
  if (newline == std::string::npos || newline - length_at > 19)
    throw std::runtime_error(fmt::format("{}: truncated header", what));
  std::size_t length = 0;
  try {
    length = std::stoull(bytes.substr(length_at, newline - length_at));
  } catch (const std::exception&) {
    throw std::runtime_error(fmt::format("{}: unreadable header length", what));
  }
  const std::size_t start = newline + 1;
  if (length > bytes.size() - start) throw std::runtime_error(fmt::format("{}: truncated header", what));
  try {
    return {nlohmann::json::parse(bytes.substr(start, length)), start + length};
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed header: {}", what, e.what()));
  }
}

}  // namespace kbench
