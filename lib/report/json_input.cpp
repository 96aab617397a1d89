#include "report/json_input.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace kbench {
namespace {

struct TooDeep {};

// The parser's position as a JSON path, kept up to date from its callback events.
class PathTracker {
 public:
  bool on_event(int depth, nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (depth >= kMaxJsonDepth) throw TooDeep{};
        frames_.push_back({event == Event::array_start, "", 0});
        break;
      case Event::key:
        if (!frames_.empty()) frames_.back().key = parsed.get<std::string>();
        break;
      case Event::object_end:
      case Event::array_end:
        if (!frames_.empty()) frames_.pop_back();
        count_element();
        break;
      case Event::value:
        count_element();
        break;
    }
    return true;
  }

  [[nodiscard]] std::string path() const {
    std::string out;
    for (const auto& frame : frames_) {
      if (frame.array)
        out += fmt::format("[{}]", frame.index);
      else
        out += (out.empty() ? "" : ".") + frame.key;
    }
    if (out.empty()) return "(top level)";
    // A deep path is shown by its ends.
    return out.size() <= 160 ? out : out.substr(0, 80) + "..." + out.substr(out.size() - 60);
  }

 private:
  struct Frame {
    bool array;
    std::string key;
    std::size_t index;
  };
  void count_element() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  std::vector<Frame> frames_;
};

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  PathTracker tracker;
  try {
    return nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t event,
                                           nlohmann::json& parsed) {
      return tracker.on_event(depth, event, parsed);
    });
  } catch (const TooDeep&) {
    throw InputError(fmt::format("{}: {}: nested deeper than {} levels; not a kbench file", source,
                                 tracker.path(), kMaxJsonDepth));
  } catch (const nlohmann::json::out_of_range& e) {
    throw InputError(fmt::format("{}: {}: a number too large for a double ({})", source,
                                 tracker.path(), e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON at {} ({})", source, tracker.path(), e.what()));
  }
}

nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& what) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error))
    throw InputError(fmt::format("{}: is a directory, not a {}", file.string(), what));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the {}", file.string(), what));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), file.string());
}

}  // namespace kbench
