#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace nmt {

// One field as RFC 4180 wants it: quoted when it holds a comma, a quote, a line break or
// leading/trailing spaces, with quotes doubled.
std::string csvField(const std::string& text);

// A record: fields joined by commas, ended by "\n".
void writeCsvRow(std::ostream& out, const std::vector<std::string>& fields);

// Splits CSV text into records (RFC 4180 quoting); for reading back what we write.
std::vector<std::vector<std::string>> parseCsv(const std::string& text);

}  // namespace nmt
