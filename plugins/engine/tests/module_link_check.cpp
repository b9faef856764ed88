// module_link_check.cpp — proves the static library links into a plugin-style MODULE with
// -z defs (every symbol resolved at link time) and hidden visibility, as plugins are built.
#include "vc_engine/engine_client.h"

extern "C" __attribute__((visibility("default"))) int vc_engine_module_link_check() {
  vc::engine::EngineLoop loop;
  auto address = vc::engine::EngineAddress::parse("unix:///var/run/docker.sock");
  if (!address) return 1;
  vc::engine::EngineClient client(loop, address.value());
  return client.api_prefix() == "/v1.41" ? 0 : 1;
}
