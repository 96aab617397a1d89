#pragma once
// The one encoding of the documents that carry tensors between the processes of one job
// (reference work, a candidate's commitment): a magic line, the JSON header's length, the
// header, then the tensors' raw bytes. A tensor is written with the dtype as ATen's enum value
// (checked against its name: the same binary reads what it wrote) and its shape; a *blinded*
// tensor has the shape and dtype only and reads back on the meta device (no storage, no values).
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace kbench {

nlohmann::json put_tensor(const at::Tensor& tensor, std::string& blob, bool blinded = false);
// Throws std::runtime_error naming what is wrong (an unknown dtype, a size, truncated data).
at::Tensor get_tensor(const nlohmann::json& header, const std::string& bytes, std::size_t base);

std::string frame_document(const char* magic, const nlohmann::json& header, const std::string& blob);
// The header and the offset of the blob; throws std::runtime_error (`what` names the document).
std::pair<nlohmann::json, std::size_t> unframe_document(const char* magic, const std::string& bytes,
                                                        const char* what);

}  // namespace kbench
