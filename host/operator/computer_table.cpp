// computer_table.cpp — see computer_table.h.
#include "operator/computer_table.h"

#include <algorithm>
#include <array>
#include <cstdio>

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

// Rows of `Columns` cells, each column padded to its widest cell plus two blanks.
template <size_t Columns>
std::string aligned_rows(const std::vector<std::array<std::string, Columns>>& rows) {
  std::array<size_t, Columns> widths{};
  for (const auto& row : rows) {
    for (size_t i = 0; i < Columns; ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string table;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < Columns; ++i) {
      line += row[i];
      if (i + 1 < Columns) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    table += line + "\n";
  }
  return table;
}

// 0 B, 812 B, 4.2 KiB, 1.5 GiB.
std::string human_size(uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  }
  return text;
}

}  // namespace

std::string format_computer_table(const std::vector<computers::ComputerInfo>& computers) {
  if (computers.empty()) return "No computers.\n";
  std::vector<Row> rows{{"COMPUTER ID", "STATE", "NETWORK", "SANDBOX", "IMAGE", "CREATED"}};
  for (const auto& computer : computers) rows.push_back(row_of(computer));
  return aligned_rows(rows);
}

std::string format_checkpoint_table(const computers::CheckpointListing& listing) {
  if (listing.checkpoints.empty()) {
    return "Computer '" + listing.computer_id + "' has no checkpoints.\n";
  }
  std::vector<std::array<std::string, 4>> rows{{"NAME", "CREATED", "SIZE", "CONTENTS"}};
  for (const auto& checkpoint : listing.checkpoints) {
    rows.push_back({checkpoint.name, checkpoint.created, human_size(checkpoint.size_bytes),
                    checkpoint.processes ? "files and processes" : "files"});
  }
  return aligned_rows(rows);
}

}  // namespace vc::operator_cli
