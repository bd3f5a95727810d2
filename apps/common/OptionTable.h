#pragma once

#include <boost/program_options.hpp>

#include <functional>
#include <string>
#include <vector>

namespace nmt::app {

// Options bound to fields, declared once: for the command line, for config files, and to
// write the effective configuration back as a config file that reads the same.
class OptionTable {
 public:
  explicit OptionTable(const std::string& caption) : description_(caption) {}

  // A "# heading" line in the written config.
  void section(const std::string& title);
  template <typename T>
  void add(const char* name, T& field, const char* help);
  // An option that is not written to the effective config (it is about this invocation).
  template <typename T>
  void addInvocation(const char* name, T& field, const char* help);
  // An invocation option that must be given.
  template <typename T>
  void addRequired(const char* name, T& field, const char* help);
  void addFlag(const char* name, bool& field, const char* help);
  // An on|off|auto option (FeatureUse) that the option alone, with no value, turns on.
  void addSwitch(const char* name, std::string& field, const char* help);

  const boost::program_options::options_description& description() const { return description_; }

  // Every option with its current value, one `name = value` a line, each under its help.
  std::string configText() const;

  // Adds a config file's values to `vm` (values already there win). Unknown options and
  // malformed values are errors naming the file and line.
  void storeConfigFile(const std::string& path, boost::program_options::variables_map& vm) const;

 private:
  struct Entry {
    std::string name, help;
    std::function<std::string()> value;  // empty for section headings
  };
  boost::program_options::options_description description_;
  std::vector<Entry> entries_;
};

// "beam,k" -> "beam": the name an option has in a config file.
std::string configName(const std::string& option);
std::string configValue(const std::string& v);
std::string configValue(bool v);
std::string configValue(double v);
template <typename T>
std::string configValue(T v) { return std::to_string(v); }

template <typename T>
void OptionTable::add(const char* name, T& field, const char* help) {
  namespace po = boost::program_options;
  if constexpr (std::is_same_v<T, bool>)
    description_.add_options()(name, po::value<bool>(&field)->default_value(field, field ? "true" : "false")->implicit_value(true, "true"), help);
  else
    description_.add_options()(name, po::value<T>(&field)->default_value(field, configValue(field)), help);
  entries_.push_back({configName(name), help, [&field] { return configValue(field); }});
}

template <typename T>
void OptionTable::addInvocation(const char* name, T& field, const char* help) {
  // --help shows a number's default from the field; a text option's help says what its absence means
  if constexpr (std::is_arithmetic_v<T>)
    description_.add_options()(name, boost::program_options::value<T>(&field)->default_value(field, configValue(field)), help);
  else
    description_.add_options()(name, boost::program_options::value<T>(&field), help);
}

template <typename T>
void OptionTable::addRequired(const char* name, T& field, const char* help) {
  auto* value = boost::program_options::value<T>(&field)->required();
  if constexpr (std::is_same_v<T, std::vector<std::string>>) value->composing()->multitoken();  // every value given
  description_.add_options()(name, value, help);
}

}  // namespace nmt::app
