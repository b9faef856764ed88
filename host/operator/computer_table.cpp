// computer_table.cpp — see computer_table.h.
#include "operator/computer_table.h"

#include <algorithm>
#include <array>

namespace vc::operator_cli {
namespace {

constexpr size_t kColumns = 6;
using Row = std::array<std::string, kColumns>;

Row row_of(const computers::ComputerInfo& computer) {
  return {computer.computer_id,
          computer.state,
          computer.network_access ? "on" : "off",
          computer.sandbox_id,
          computer.image.value_or("-"),
          computer.created_at.value_or("-")};
}

}  // namespace

std::string format_computer_table(const std::vector<computers::ComputerInfo>& computers) {
  if (computers.empty()) return "No computers.\n";
  std::vector<Row> rows{{"COMPUTER ID", "STATE", "NETWORK", "SANDBOX", "IMAGE", "CREATED"}};
  for (const auto& computer : computers) rows.push_back(row_of(computer));
  std::array<size_t, kColumns> widths{};
  for (const auto& row : rows) {
    for (size_t i = 0; i < kColumns; ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string table;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < kColumns; ++i) {
      line += row[i];
      if (i + 1 < kColumns) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    table += line + "\n";
  }
  return table;
}

}  // namespace vc::operator_cli
