// elf_exports.h — reading a shared object's header and exported symbols without loading it.
//
// dlopen() runs a library's static constructors, so the host first checks that a file is an ELF
// shared object for this machine and that it exports the entry symbol. Boost.DLL's
// library_info is not used for this: in Boost 1.74 it reads only .symtab (absent from stripped
// libraries, so every packaged plugin would look entry-less) and does not bounds-check the
// offsets it reads. This reader uses .dynsym, the table the dynamic linker uses, and checks
// every offset against the file size.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/failure.h"

namespace vc::plugins {

struct SharedObjectExports {
  // False when the file has no section headers (e.g. sstrip'ed): the export list is unknown and
  // the entry symbol is looked up after dlopen instead.
  bool symbol_table_read = false;
  // Defined, exported symbols whose name starts with "vc_plugin_entry_v", in table order.
  std::vector<std::string> entry_symbols;
};

// [any-thread] Fails (message without the path) when the file is not an ELF shared object that
// this process could load: not ELF, truncated, another word size, byte order or machine, an
// executable or object file, a corrupt section table.
Expected<SharedObjectExports> read_shared_object_exports(const std::filesystem::path& path);

}  // namespace vc::plugins
