#include "shell_completion.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "core/text.hpp"

namespace kbench::cli {
namespace {

// One command of the tree: its path below the root ("" for kbench itself, "history trend"), the
// visible children and the option names with their one-line help.
struct CommandNode {
  std::string path;
  std::vector<std::pair<std::string, std::string>> children;  // name, description
  std::vector<std::pair<std::string, std::string>> options;   // --name or -n, description
};

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return text.substr(0, end);
}

// Hidden subcommands (the internal `worker`) have an empty group, as in --help.
bool visible(const CLI::App* app) { return !app->get_group().empty(); }

void collect(const CLI::App& app, const std::string& path, std::vector<CommandNode>& nodes) {
  CommandNode node{path, {}, {}};
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() && option->get_lnames().empty() && option->get_snames().empty()) continue;
    if (option->get_group().empty()) continue;
    for (const auto& name : option->get_lnames()) node.options.emplace_back("--" + name, first_line(option->get_description()));
    for (const auto& name : option->get_snames()) node.options.emplace_back("-" + name, first_line(option->get_description()));
  }
  std::vector<const CLI::App*> children;
  for (const CLI::App* child : const_cast<CLI::App&>(app).get_subcommands([](CLI::App*) { return true; }))
    if (visible(child)) children.push_back(child);
  for (const CLI::App* child : children) node.children.emplace_back(child->get_name(), first_line(child->get_description()));
  nodes.push_back(node);
  for (const CLI::App* child : children)
    collect(*child, path.empty() ? child->get_name() : path + " " + child->get_name(), nodes);
}

std::string words(const std::vector<std::pair<std::string, std::string>>& items) {
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(item.first);
  return join(names, " ");
}

// zsh _describe entries are NAME:DESCRIPTION inside single quotes.
std::string zsh_entry(const std::pair<std::string, std::string>& item) {
  std::string text = item.first + ":";
  for (char c : item.second) {
    if (c == '\'') text += "'\\''";
    else if (c == ':') text += "\\:";
    else text += c;
  }
  return "'" + text + "'";
}

std::string bash_script(const std::vector<CommandNode>& nodes) {
  std::string children_cases, option_cases;
  for (const auto& node : nodes) {
    if (!node.children.empty()) children_cases += fmt::format("    '{}') echo '{}' ;;\n", node.path, words(node.children));
    option_cases += fmt::format("    '{}') echo '{}' ;;\n", node.path, words(node.options));
  }
  return fmt::format(R"SH(# bash completion for kbench, written by `kbench completion bash` from its CLI definition.
# Install: kbench completion bash > ~/.local/share/bash-completion/completions/kbench
_kbench_children() {{
  case "$1" in
{}  esac
}}
_kbench_options() {{
  case "$1" in
{}  esac
}}
_kbench() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" path="" word child i
  # The command path: each earlier word that names a subcommand of the path so far.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="${{COMP_WORDS[i]}}"
    [[ "$word" == -* ]] && continue
    for child in $(_kbench_children "$path"); do
      if [[ "$word" == "$child" ]]; then path="${{path:+$path }}$word"; break; fi
    done
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_kbench_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_kbench_children "$path")" -- "$cur"))
    [[ ${{#COMPREPLY[@]}} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}}
complete -o default -o bashdefault -F _kbench kbench
)SH",
                     children_cases, option_cases);
}

std::string zsh_script(const std::vector<CommandNode>& nodes) {
  std::string children_cases, option_cases;
  for (const auto& node : nodes) {
    std::vector<std::string> entries;
    for (const auto& child : node.children) entries.push_back(zsh_entry(child));
    if (!entries.empty()) children_cases += fmt::format("    '{}') reply=({}) ;;\n", node.path, join(entries, " "));
    entries.clear();
    for (const auto& option : node.options) entries.push_back(zsh_entry(option));
    option_cases += fmt::format("    '{}') reply=({}) ;;\n", node.path, join(entries, " "));
  }
  return fmt::format(R"SH(#compdef kbench
# zsh completion for kbench, written by `kbench completion zsh` from its CLI definition.
# Install: kbench completion zsh > "${{fpath[1]}}/_kbench" (then compinit)
_kbench_children() {{
  reply=()
  case "$1" in
{}  esac
}}
_kbench_options() {{
  reply=()
  case "$1" in
{}  esac
}}
_kbench() {{
  local path_so_far="" word entry
  local -a reply names
  for word in "${{(@)words[2,CURRENT-1]}}"; do
    [[ "$word" == -* ]] && continue
    _kbench_children "$path_so_far"
    for entry in "${{reply[@]}}"; do
      if [[ "${{entry%%:*}}" == "$word" ]]; then path_so_far="${{path_so_far:+$path_so_far }}$word"; break; fi
    done
  done
  if [[ "${{words[CURRENT]}}" == -* ]]; then
    _kbench_options "$path_so_far"
    _describe -t options 'option' reply
  else
    _kbench_children "$path_so_far"
    if (( ${{#reply}} )); then _describe -t commands 'command' reply; else _files; fi
  fi
}}
if [[ "${{zsh_eval_context[-1]}}" == loadautofunc ]]; then _kbench "$@"; else compdef _kbench kbench; fi
)SH",
                     children_cases, option_cases);
}

}  // namespace

std::string completion_script(const CLI::App& root, const std::string& shell) {
  std::vector<CommandNode> nodes;
  collect(root, "", nodes);
  return shell == "zsh" ? zsh_script(nodes) : bash_script(nodes);
}

void add_completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("completion", "Print a shell completion script (bash or zsh) for kbench");
  cmd->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  cmd->callback([&app, shell] { std::fputs(completion_script(app, *shell).c_str(), stdout); });
}

}  // namespace kbench::cli
