#include "util/OptionTable.h"

#include <fmt/core.h>

#include <fstream>
#include <sstream>

namespace po = boost::program_options;

namespace nmt {

std::string configName(const std::string& option) { return option.substr(0, option.find(',')); }
std::string configValue(const std::string& v) { return v; }
std::string configValue(bool v) { return v ? "true" : "false"; }
std::string configValue(double v) { return fmt::format("{}", v); }

const char* kindName(OptionKind kind) {
  switch (kind) {
    case OptionKind::kFlag: return "true or false";
    case OptionKind::kWholeNumber: return "a whole number";
    case OptionKind::kNumber: return "a number";
    case OptionKind::kText: return "text";
    case OptionKind::kOther: break;
  }
  return "a value given on the command line only";
}

void OptionTable::section(const std::string& title) { entries_.push_back({title, "", {}}); }

void OptionTable::addFlag(const char* name, bool& field, const char* help) {
  noteType<bool>(name);
  description_.add_options()(name, po::bool_switch(&field), help);
}

void OptionTable::addSwitch(const char* name, std::string& field, const char* help) {
  noteType<std::string>(name);
  description_.add_options()(name, po::value<std::string>(&field)->default_value(field)->implicit_value("on"), help);
  entries_.push_back({configName(name), help, [&field] { return configValue(field); }});
}

std::string OptionTable::configText() const {
  std::string out;
  for (const auto& e : entries_) {
    if (!e.value) {
      out += fmt::format("{}# --- {} ---\n", out.empty() ? "" : "\n", e.name);
      continue;
    }
    out += fmt::format("# {}\n{} = {}\n", e.help, e.name, e.value());
  }
  return out;
}

void OptionTable::storeConfigFile(const std::string& path, po::variables_map& vm) const {
  std::ifstream in(path);
  if (!in) throw po::error("cannot open config file " + path);
  std::stringstream text;
  text << in.rdbuf();
  auto lineOf = [&](std::string name) -> std::string {
    while (!name.empty() && name[0] == '-') name.erase(0, 1);
    std::istringstream lines(text.str());
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      const auto start = line.find_first_not_of(" \t");
      if (start != std::string::npos && line.compare(start, name.size(), name) == 0) return std::to_string(n);
    }
    return "?";
  };
  try {
    std::istringstream stream(text.str());
    po::store(po::parse_config_file(stream, description_, /*allow_unregistered=*/false), vm);
  } catch (const po::error_with_option_name& e) {
    throw po::error(fmt::format("{}:{}: {}", path, lineOf(e.get_option_name()), e.what()));
  } catch (const po::error& e) {
    throw po::error(fmt::format("{}: {}", path, e.what()));
  }
}

std::optional<OptionKind> OptionTable::kind(const std::string& name) const {
  const auto found = typed_.find(name);
  if (found == typed_.end()) return std::nullopt;
  return found->second.kind;
}

void OptionTable::storeValues(const std::vector<std::pair<std::string, OptionValue>>& values,
                              po::variables_map& vm) const {
  po::parsed_options parsed(&description_);
  for (const auto& [name, value] : values) {
    const auto found = typed_.find(name);
    if (found == typed_.end()) throw OptionError("no option `" + name + "`");
    parsed.options.emplace_back(name, std::vector<std::string>{found->second.text(value)});
  }
  po::store(parsed, vm);
}

}  // namespace nmt
