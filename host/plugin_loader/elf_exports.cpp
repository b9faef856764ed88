#include "plugin_loader/elf_exports.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <system_error>

#include <vc-backend-1/vc_status.h>

namespace vc::plugins {

namespace {

using ElfHeader = ElfW(Ehdr);
using SectionHeader = ElfW(Shdr);
using Symbol = ElfW(Sym);

constexpr std::string_view kEntryPrefix = "vc_plugin_entry_v";

#if defined(__x86_64__)
constexpr unsigned kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kHostMachine = EM_AARCH64;
#elif defined(__i386__)
constexpr unsigned kHostMachine = EM_386;
#elif defined(__arm__)
constexpr unsigned kHostMachine = EM_ARM;
#elif defined(__riscv)
constexpr unsigned kHostMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr unsigned kHostMachine = EM_PPC64;
#elif defined(__s390x__)
constexpr unsigned kHostMachine = EM_S390;
#else
constexpr unsigned kHostMachine = EM_NONE;  // unknown: the dynamic linker decides
#endif

constexpr unsigned char kHostClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostByteOrder = ELFDATA2LSB;
#else
constexpr unsigned char kHostByteOrder = ELFDATA2MSB;
#endif

Failure not_a_shared_object(const std::string& why) {
  return Failure{VC_E_INVALID_ARGUMENT, "not a shared object (" + why + ")"};
}

Failure corrupt(const std::string& what) {
  return not_a_shared_object("corrupt ELF file: " + what);
}

// Reads byte ranges of one open file, refusing any range outside it.
class FileReader {
 public:
  explicit FileReader(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    struct stat info {};
    if (fd_ < 0 || ::fstat(fd_, &info) != 0) {
      open_errno_ = errno;
      return;
    }
    size_ = static_cast<uint64_t>(info.st_size);
  }
  ~FileReader() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  bool is_open() const { return fd_ >= 0 && open_errno_ == 0; }
  int open_errno() const { return open_errno_; }
  uint64_t size() const { return size_; }

  bool contains(uint64_t offset, uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

  // True when all `length` bytes at `offset` were read into `out`.
  bool read(uint64_t offset, void* out, uint64_t length) const {
    if (!contains(offset, length)) return false;
    auto* bytes = static_cast<char*>(out);
    while (length > 0) {
      const ssize_t got = ::pread(fd_, bytes, length, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      bytes += got;
      offset += static_cast<uint64_t>(got);
      length -= static_cast<uint64_t>(got);
    }
    return true;
  }

 private:
  int fd_ = -1;
  int open_errno_ = 0;
  uint64_t size_ = 0;
};

std::string elf_type_description(unsigned type) {
  switch (type) {
    case ET_EXEC: return "an ELF executable";
    case ET_REL: return "an ELF relocatable object file";
    case ET_CORE: return "an ELF core dump";
    default: return "an ELF file of type " + std::to_string(type);
  }
}

Expected<ElfHeader> read_elf_header(const FileReader& file) {
  unsigned char ident[EI_NIDENT] = {};
  if (!file.read(0, ident, sizeof ident) || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    return not_a_shared_object("not an ELF file");
  }
  if (ident[EI_CLASS] != kHostClass) {
    return Failure{VC_E_INCOMPATIBLE, std::string("built for ") +
                                          (ident[EI_CLASS] == ELFCLASS32 ? "32" : "64") +
                                          "-bit code; this host is " +
                                          (kHostClass == ELFCLASS32 ? "32" : "64") + "-bit"};
  }
  if (ident[EI_DATA] != kHostByteOrder) {
    return Failure{VC_E_INCOMPATIBLE, "built for the other byte order than this host's"};
  }
  ElfHeader header{};
  if (!file.read(0, &header, sizeof header)) return corrupt("truncated ELF header");
  if (header.e_type != ET_DYN) return not_a_shared_object(elf_type_description(header.e_type));
  if (kHostMachine != EM_NONE && header.e_machine != kHostMachine) {
    return Failure{VC_E_INCOMPATIBLE, "built for another processor (ELF machine " +
                                          std::to_string(header.e_machine) + "; this host is " +
                                          std::to_string(kHostMachine) + ")"};
  }
  return header;
}

Expected<std::vector<SectionHeader>> read_section_headers(const FileReader& file,
                                                          const ElfHeader& header) {
  if (header.e_shoff == 0) return std::vector<SectionHeader>{};
  if (header.e_shentsize != sizeof(SectionHeader)) return corrupt("unexpected section header size");
  uint64_t count = header.e_shnum;
  if (count == 0) {
    // More than SHN_LORESERVE sections: the real count is in section 0's sh_size.
    SectionHeader first{};
    if (!file.read(header.e_shoff, &first, sizeof first))
      return corrupt("section table outside the file");
    count = first.sh_size;
  }
  if (count > file.size() / sizeof(SectionHeader) ||
      !file.contains(header.e_shoff, count * sizeof(SectionHeader))) {
    return corrupt("section table outside the file");
  }
  std::vector<SectionHeader> sections(count);
  if (!file.read(header.e_shoff, sections.data(), count * sizeof(SectionHeader))) {
    return corrupt("section table unreadable");
  }
  return sections;
}

bool is_exported_definition(const Symbol& symbol) {
  const unsigned binding = symbol.st_info >> 4;
  const unsigned visibility = symbol.st_other & 0x3u;
  const bool global = binding == STB_GLOBAL || binding == STB_WEAK || binding == STB_GNU_UNIQUE;
  const bool visible = visibility == STV_DEFAULT || visibility == STV_PROTECTED;
  return global && visible && symbol.st_shndx != SHN_UNDEF;
}

Expected<std::vector<std::string>> entry_symbols_of(const FileReader& file,
                                                    const std::vector<SectionHeader>& sections,
                                                    const SectionHeader& symbol_table) {
  if (symbol_table.sh_link >= sections.size() ||
      sections[symbol_table.sh_link].sh_type != SHT_STRTAB) {
    return corrupt("dynamic symbol table without its string table");
  }
  const SectionHeader& string_table = sections[symbol_table.sh_link];
  if (!file.contains(symbol_table.sh_offset, symbol_table.sh_size) ||
      !file.contains(string_table.sh_offset, string_table.sh_size)) {
    return corrupt("dynamic symbol table outside the file");
  }
  std::vector<Symbol> symbols(symbol_table.sh_size / sizeof(Symbol));
  std::string names(string_table.sh_size, '\0');
  if (!file.read(symbol_table.sh_offset, symbols.data(), symbols.size() * sizeof(Symbol)) ||
      !file.read(string_table.sh_offset, names.data(), names.size())) {
    return corrupt("dynamic symbol table unreadable");
  }
  std::vector<std::string> found;
  for (const Symbol& symbol : symbols) {
    if (symbol.st_name >= names.size() || !is_exported_definition(symbol)) continue;
    const char* name = names.data() + symbol.st_name;
    const std::string_view text(name, ::strnlen(name, names.size() - symbol.st_name));
    if (text.substr(0, kEntryPrefix.size()) == kEntryPrefix) found.emplace_back(text);
  }
  return found;
}

}  // namespace

Expected<SharedObjectExports> read_shared_object_exports(const std::filesystem::path& path) {
  const FileReader file(path);
  if (!file.is_open()) {
    return Failure{VC_E_PERMISSION,
                   "cannot read the file: " +
                       std::error_code(file.open_errno(), std::generic_category()).message()};
  }
  auto header = read_elf_header(file);
  if (!header) return header.error();
  auto sections = read_section_headers(file, header.value());
  if (!sections) return sections.error();

  SharedObjectExports exports;
  if (sections.value().empty()) return exports;  // unknown; dlsym decides after loading
  exports.symbol_table_read = true;
  for (const SectionHeader& section : sections.value()) {
    if (section.sh_type != SHT_DYNSYM) continue;
    auto names = entry_symbols_of(file, sections.value(), section);
    if (!names) return names.error();
    for (std::string& name : names.value()) exports.entry_symbols.push_back(std::move(name));
  }
  return exports;
}

}  // namespace vc::plugins
