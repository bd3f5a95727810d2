#pragma once

#include <string>

namespace nmt {

// Text made safe inside an XML (SVG) element or attribute value: & < > " ' escaped.
std::string xmlEscaped(const std::string& text);

}  // namespace nmt
