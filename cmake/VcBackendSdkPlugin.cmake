# VcBackendSdkPlugin.cmake — vc_backend_add_plugin(), the one way to build a backend plugin.
#
# Used by the project's own plugins (included from sdk/CMakeLists.txt) and installed with the
# SDK's CMake package, so a third-party plugin is built exactly like the bundled ones.
#
#   vc_backend_add_plugin(<target>
#     NAME <backend-name>              # [a-z0-9-]+; the file becomes vc-backend-<name>.so
#     SOURCES <file>...
#     [OUTPUT_DIRECTORY <dir>]         # where the build writes the module
#     [INSTALL_DESTINATION <dir>]      # default: the backend directory (see below)
#     [COMPONENT <name>]               # install component; default: backend-<name>
#     [NO_INSTALL])
#
# The result is a MODULE library that
#  - is named exactly vc-backend-<name>.so (no "lib" prefix), which is how the host finds
#    `--backend <name>`;
#  - compiles with hidden visibility and links with the SDK's version script, so its only
#    exported symbol is vc_plugin_entry_v1: a plugin's copy of libstdc++ inlines, JSON library
#    or anything else can never interpose on the host's or another plugin's;
#  - links with -z defs, so a missing symbol is a link error here instead of a dlopen()
#    failure on a user's machine (a plugin must not expect the host to provide symbols);
#  - links the SDK headers target.
# Inside the mcp-virtual-computer build tree (VC_PLUGIN_OUTPUT_DIR defined) the module is
# written next to the host's other plugins so the uninstalled host finds it, unless
# OUTPUT_DIRECTORY says otherwise (test plugins that must not be discovered use that).
#
# Install destination, unless INSTALL_DESTINATION says otherwise: the backend directory
# relative to the install prefix (VcBackendSdk_BACKEND_SUBDIR, e.g.
# lib/mcp-virtual-computer/backends). Installing with the host's prefix therefore puts the
# plugin where the host looks by default; VcBackendSdk_BACKEND_DIR is that directory in the
# SDK's own prefix. Each plugin is its own install component (backend-<name>), so a package
# or a test can install the host without a given plugin:
#   cmake --install <build> --component Unspecified      # host and SDK
#   cmake --install <build> --component backend-docker   # one plugin

include_guard(GLOBAL)

function(vc_backend_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_INSTALL" "NAME;OUTPUT_DIRECTORY;INSTALL_DESTINATION;COMPONENT" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "vc_backend_add_plugin(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME)
    message(FATAL_ERROR "vc_backend_add_plugin(${target}): NAME <backend-name> is required")
  endif()
  if(NOT ARG_NAME MATCHES "^[a-z0-9-]+$")
    message(FATAL_ERROR
      "vc_backend_add_plugin(${target}): NAME '${ARG_NAME}' must match [a-z0-9-]+ "
      "(it is what users type after --backend)")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "vc_backend_add_plugin(${target}): SOURCES is empty")
  endif()

  get_property(version_script GLOBAL PROPERTY VC_BACKEND_SDK_VERSION_SCRIPT)
  if(NOT version_script)
    # Installed layout without the package config having set it: the map lies beside us.
    set(version_script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/vc-backend-1.map")
  endif()
  if(NOT EXISTS "${version_script}")
    message(FATAL_ERROR "vc_backend_add_plugin: version script ${version_script} not found")
  endif()
  if(NOT TARGET VcBackendSdk::headers)
    message(FATAL_ERROR
      "vc_backend_add_plugin: target VcBackendSdk::headers is missing; "
      "call find_package(VcBackendSdk 1 REQUIRED) first")
  endif()

  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "vc-backend-${ARG_NAME}"
    SUFFIX ".so"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS "${version_script}")
  target_link_libraries(${target} PRIVATE VcBackendSdk::headers)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${version_script}"
    "LINKER:-z,defs")

  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  elseif(DEFINED VC_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${VC_PLUGIN_OUTPUT_DIR}")
  endif()

  if(NOT ARG_NO_INSTALL)
    if(ARG_INSTALL_DESTINATION)
      set(destination "${ARG_INSTALL_DESTINATION}")
    elseif(DEFINED VC_PLUGIN_INSTALL_SUBDIR)
      set(destination "${VC_PLUGIN_INSTALL_SUBDIR}")
    elseif(DEFINED VcBackendSdk_BACKEND_SUBDIR)
      set(destination "${VcBackendSdk_BACKEND_SUBDIR}")
    else()
      set(destination "lib/mcp-virtual-computer/backends")
    endif()
    if(NOT ARG_COMPONENT)
      set(ARG_COMPONENT "backend-${ARG_NAME}")
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION "${destination}" COMPONENT "${ARG_COMPONENT}")
  endif()
endfunction()
