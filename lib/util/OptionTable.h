#pragma once

#include "util/InputError.h"

#include <boost/program_options.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace nmt {

// A value as a caller in this process gives it (Python's keywords), rather than as text.
using OptionValue = std::variant<bool, int64_t, double, std::string>;
// What an option's field holds: the kinds of OptionValue it takes (a number takes a whole number too).
enum class OptionKind { kFlag, kWholeNumber, kNumber, kText, kOther };

// Options bound to fields, declared once: for the command line, for config files, for values
// given in a caller's own terms (storeValues), and to write the effective configuration back as a
// config file that reads the same.
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

  // What the option `name` (as a config file writes it) takes; nullopt when there is no such option.
  std::optional<OptionKind> kind(const std::string& name) const;
  // Stores values into vm as the command line would (po::notify then sets the fields), each by its
  // name as a config file writes it. OptionError naming the option for an unknown one, a value of
  // another kind, or a whole number out of the field's range.
  void storeValues(const std::vector<std::pair<std::string, OptionValue>>& values,
                   boost::program_options::variables_map& vm) const;

 private:
  struct Entry {
    std::string name, help;
    std::function<std::string()> value;  // empty for section headings
  };
  struct Typed {
    OptionKind kind;
    std::function<std::string(const OptionValue&)> text;  // as the parser reads it, or OptionError
  };
  template <typename T>
  void noteType(const char* name);
  template <typename T>
  static std::string checkedText(const std::string& name, const OptionValue& value);

  boost::program_options::options_description description_;
  std::vector<Entry> entries_;
  std::map<std::string, Typed> typed_;  // every option, by config name
};

// "beam,k" -> "beam": the name an option has in a config file.
std::string configName(const std::string& option);
// "true or false", "a whole number", "a number", "text": what an option of this kind takes.
const char* kindName(OptionKind kind);
std::string configValue(const std::string& v);
std::string configValue(bool v);
std::string configValue(double v);
template <typename T>
std::string configValue(T v) { return std::to_string(v); }

template <typename T>
constexpr OptionKind kindOf() {
  if constexpr (std::is_same_v<T, bool>) return OptionKind::kFlag;
  if constexpr (std::is_integral_v<T>) return OptionKind::kWholeNumber;
  if constexpr (std::is_floating_point_v<T>) return OptionKind::kNumber;
  if constexpr (std::is_same_v<T, std::string>) return OptionKind::kText;
  return OptionKind::kOther;
}

template <typename T>
void OptionTable::noteType(const char* name) {
  const std::string key = configName(name);
  typed_[key] = {kindOf<T>(), [key](const OptionValue& value) { return checkedText<T>(key, value); }};
}

template <typename T>
std::string OptionTable::checkedText(const std::string& name, const OptionValue& value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (const auto* b = std::get_if<bool>(&value)) return configValue(*b);
  } else if constexpr (std::is_integral_v<T>) {
    if (const auto* i = std::get_if<int64_t>(&value)) {
      const bool fits = std::is_signed_v<T> ? *i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                                                  *i <= static_cast<int64_t>(std::numeric_limits<T>::max())
                                            : *i >= 0 && static_cast<uint64_t>(*i) <= std::numeric_limits<T>::max();
      if (!fits)
        throw OptionError("`" + name + "` must be a whole number from " + std::to_string(std::numeric_limits<T>::min()) +
                          " to " + std::to_string(std::numeric_limits<T>::max()) + ", not " + std::to_string(*i));
      return std::to_string(*i);
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (const auto* d = std::get_if<double>(&value)) return configValue(*d);
    if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (const auto* text = std::get_if<std::string>(&value)) return *text;
  }
  throw OptionError("`" + name + "` takes " + kindName(kindOf<T>()));
}

template <typename T>
void OptionTable::add(const char* name, T& field, const char* help) {
  noteType<T>(name);
  namespace po = boost::program_options;
  if constexpr (std::is_same_v<T, bool>)
    description_.add_options()(name, po::value<bool>(&field)->default_value(field, field ? "true" : "false")->implicit_value(true, "true"), help);
  else
    description_.add_options()(name, po::value<T>(&field)->default_value(field, configValue(field)), help);
  entries_.push_back({configName(name), help, [&field] { return configValue(field); }});
}

template <typename T>
void OptionTable::addInvocation(const char* name, T& field, const char* help) {
  noteType<T>(name);
  // --help shows a number's default from the field; a text option's help says what its absence means
  if constexpr (std::is_arithmetic_v<T>)
    description_.add_options()(name, boost::program_options::value<T>(&field)->default_value(field, configValue(field)), help);
  else
    description_.add_options()(name, boost::program_options::value<T>(&field), help);
}

template <typename T>
void OptionTable::addRequired(const char* name, T& field, const char* help) {
  noteType<T>(name);
  auto* value = boost::program_options::value<T>(&field)->required();
  if constexpr (std::is_same_v<T, std::vector<std::string>>) value->composing()->multitoken();  // every value given
  description_.add_options()(name, value, help);
}

}  // namespace nmt
