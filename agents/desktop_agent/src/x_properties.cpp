// x_properties.cpp — XGetWindowProperty wrappers that read a property whole.
#include "x_properties.h"

#include <X11/Xatom.h>
#include <X11/Xutil.h>

namespace vc::desktop_agent {
namespace {

struct PropertyData {
  Atom type = None;
  int format = 0;
  unsigned long items = 0;
  unsigned char* data = nullptr;
  ~PropertyData() {
    if (data != nullptr) XFree(data);
  }
};

bool get_property(XConnection& x, Window window, Atom property, Atom type, PropertyData& out) {
  unsigned long after = 0;
  XConnection::ErrorTrap trap(x);
  const int status = XGetWindowProperty(x.display(), window, property, 0, 0x7fffffff, False,
                                        type, &out.type, &out.format, &out.items, &after,
                                        &out.data);
  return status == Success && out.type != None;
}

}  // namespace

std::string latin1_as_utf8(const std::string& latin1) {
  std::string out;
  for (unsigned char c : latin1) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

std::optional<std::vector<unsigned long>> read_cardinals(XConnection& x, Window window,
                                                         Atom property, Atom type) {
  PropertyData data;
  if (!get_property(x, window, property, type, data)) return std::nullopt;
  if (data.format != 32 || data.type != type) return std::nullopt;
  const auto* values = reinterpret_cast<const unsigned long*>(data.data);
  std::vector<unsigned long> out(values, values + data.items);
  // Xlib hands format-32 data as longs: keep the 32 bits the protocol carries.
  for (unsigned long& value : out) value &= 0xffffffffUL;
  return out;
}

std::optional<std::string> read_bytes(XConnection& x, Window window, Atom property, Atom type,
                                      Atom* actual_type) {
  PropertyData data;
  if (!get_property(x, window, property, type, data)) return std::nullopt;
  if (data.format != 8) return std::nullopt;
  if (actual_type != nullptr) *actual_type = data.type;
  return std::string(reinterpret_cast<const char*>(data.data), data.items);
}

std::optional<std::string> read_title(XConnection& x, Window window) {
  const Atom utf8 = x.atom("UTF8_STRING");
  if (auto name = read_bytes(x, window, x.atom("_NET_WM_NAME"), utf8)) return name;
  Atom type = None;
  auto name = read_bytes(x, window, XA_WM_NAME, AnyPropertyType, &type);
  if (!name) return std::nullopt;
  if (type == utf8) return name;
  if (type == XA_STRING) return latin1_as_utf8(*name);
  // COMPOUND_TEXT and the like: Xlib converts through the locale (C.UTF-8 in the image).
  XTextProperty text{};
  text.value = reinterpret_cast<unsigned char*>(name->data());
  text.encoding = type;
  text.format = 8;
  text.nitems = name->size();
  char** list = nullptr;
  int count = 0;
  std::string out;
  if (Xutf8TextPropertyToTextList(x.display(), &text, &list, &count) >= Success && list != nullptr) {
    for (int i = 0; i < count; ++i) out += list[i];
    XFreeStringList(list);
    return out;
  }
  return latin1_as_utf8(*name);
}

}  // namespace vc::desktop_agent
