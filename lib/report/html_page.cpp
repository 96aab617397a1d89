#include "report/html_page.hpp"

#include "report/markup.hpp"

namespace kbench {
namespace {

const char* const kStyle = R"(body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.summary{background:#f4f6f8;padding:8px 12px;border-radius:4px}
.meta td{padding:1px 12px 1px 0;color:#555}
table.results{border-collapse:collapse;font-size:13px}
table.results th,table.results td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
table.results td.num{text-align:right;white-space:nowrap}
tr.ok td.status{color:#1a7f37}tr.fail td.status{color:#cf222e}
td.msg{font-family:monospace;white-space:pre-wrap;max-width:420px;font-size:12px}
svg{display:block;margin:8px 0}
svg .frame{fill:#fff;stroke:#ddd}
svg .label,svg .value,svg .none{font-size:11px;fill:#333}svg .none{fill:#cf222e}
svg .title{font-size:12px;fill:#555}
svg .axis{stroke:#888}svg .grid{stroke:#eee}svg .one{stroke:#222;stroke-width:1.5}
svg .faster{fill:#2da44e}svg .slower{fill:#e5534b}
svg .pass{fill:#4078c0}svg .beats{fill:#2da44e}
svg .eager{fill:#8c959f}svg .inductor{fill:#4078c0}
)";

}  // namespace

std::string html_page_head(const std::string& title, const std::string& extra_css) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         escape_xml(title) + "</title>\n<style>\n" + kStyle + extra_css + "</style>\n</head>\n<body>\n";
}

}  // namespace kbench
