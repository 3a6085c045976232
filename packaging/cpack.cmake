# Debian packages, one per CPack component:
#   host        -> envhost               (server, config, unit, man page)
#   <plugin>    -> envhost-plugin-<name> (one per bundled plugin)
#   sdk         -> envhost-dev           (headers, CMake package, pkg-config)
set(ENVHOST_DEB_RELEASE "1" CACHE STRING "Debian revision of the packages")
set(ENVHOST_PACKAGE_MAINTAINER "envhost developers <envhost@example.org>" CACHE STRING
    "Maintainer field of the Debian packages")
set(_deb_version "${PROJECT_VERSION}-${ENVHOST_DEB_RELEASE}")
set(_deb_scripts "${CMAKE_CURRENT_BINARY_DIR}/debian")

foreach(f postinst prerm postrm triggers conffiles)
  configure_file(debian/envhost/${f}.in "${_deb_scripts}/envhost/${f}" @ONLY)
endforeach()

# Every package carries the copyright and a changelog in /usr/share/doc/<name>.
# string(TIMESTAMP) honours SOURCE_DATE_EPOCH, for reproducible builds.
set(ENVHOST_DEB_VERSION "${_deb_version}")
string(TIMESTAMP ENVHOST_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(debian/changelog.in "${_deb_scripts}/changelog.Debian" @ONLY)
add_custom_command(OUTPUT "${_deb_scripts}/changelog.Debian.gz"
  COMMAND gzip -n -9 -c "${_deb_scripts}/changelog.Debian" > "${_deb_scripts}/changelog.Debian.gz"
  DEPENDS "${_deb_scripts}/changelog.Debian" VERBATIM)
add_custom_target(envhost_deb_changelog ALL DEPENDS "${_deb_scripts}/changelog.Debian.gz")
function(envhost_package_docs component package)
  install(FILES debian/copyright "${_deb_scripts}/changelog.Debian.gz"
    DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}" COMPONENT ${component})
endfunction()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME envhost)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${ENVHOST_PACKAGE_MAINTAINER}")
# Empty, so CPack does not put the project summary above every component's own.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
# Stripped, as Debian ships binaries: the host finds a plugin's entry point
# in the dynamic symbol table, which strip keeps.
set(CPACK_STRIP_FILES ON)
set(CPACK_OUTPUT_FILE_PREFIX "${PROJECT_SOURCE_DIR}/dist" CACHE PATH "Where `cpack` writes the packages")

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE "${ENVHOST_DEB_RELEASE}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# The server.
set(CPACK_DEBIAN_HOST_PACKAGE_NAME envhost)
envhost_package_docs(host envhost)
set(CPACK_DEBIAN_HOST_PACKAGE_DEPENDS "adduser, passwd, init-system-helpers (>= 1.52)")
set(CPACK_DEBIAN_HOST_PACKAGE_SUGGESTS "envhost-dev")
set(CPACK_DEBIAN_HOST_DESCRIPTION "server for OpenEnv reinforcement-learning environments
envhost serves OpenEnv environments over HTTP, WebSocket and MCP JSON-RPC.
Each environment is a plugin, a shared library loaded from
${ENVHOST_SYSTEM_PLUGIN_DIR} (packaged plugins) or
${ENVHOST_LOCAL_PLUGIN_DIR} (plugins dropped in by the administrator).
This package holds the server, its systemd service (run as the envhost
system user, on 127.0.0.1:8000 by default) and its configuration in
${ENVHOST_CONFIG_DIR}.")
set(CPACK_DEBIAN_HOST_PACKAGE_CONTROL_EXTRA
  "${_deb_scripts}/envhost/postinst;${_deb_scripts}/envhost/prerm;${_deb_scripts}/envhost/postrm;${_deb_scripts}/envhost/triggers;${_deb_scripts}/envhost/conffiles")

# The SDK. Architecture-specific only because its CMake package and
# pkg-config file name the multiarch plugin directory.
set(CPACK_DEBIAN_SDK_PACKAGE_NAME envhost-dev)
envhost_package_docs(sdk envhost-dev)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "nlohmann-json3-dev (>= 3.10)")
set(CPACK_DEBIAN_SDK_PACKAGE_RECOMMENDS "g++ | c++-compiler, cmake | pkg-config")
set(CPACK_DEBIAN_SDK_PACKAGE_SUGGESTS "envhost (= ${_deb_version})")
set(CPACK_DEBIAN_SDK_DESCRIPTION "SDK for building envhost environment plugins
Headers of the envhost plugin ABI (envhost/plugin.h) and of the header-only
C++ layer over it (envhost/sdk.hpp), with a CMake package
(find_package(envhost) gives the envhost::sdk target and envhost_add_plugin())
and a pkg-config file (envhost.pc).")

# The bundled plugins, named after their environment: coding_env ->
# envhost-plugin-coding. Exact version: they are built against this host.
set(_components host sdk)
function(envhost_package_plugin component summary long_description depends)
  if(NOT TARGET ${component})
    return()
  endif()
  string(TOUPPER "${component}" C)
  string(REGEX REPLACE "_env$" "" short "${component}")
  string(REPLACE "_" "-" short "${short}")
  set(CPACK_DEBIAN_${C}_PACKAGE_NAME "envhost-plugin-${short}" PARENT_SCOPE)
  envhost_package_docs(${component} "envhost-plugin-${short}")
  set(CPACK_DEBIAN_${C}_PACKAGE_DEPENDS "envhost (= ${_deb_version})${depends}" PARENT_SCOPE)
  set(CPACK_DEBIAN_${C}_DESCRIPTION "${summary}\n${long_description}" PARENT_SCOPE)
  set(_components ${_components} ${component} PARENT_SCOPE)
endfunction()

envhost_package_plugin(echo_env "echo_env environment for envhost"
  "The OpenEnv protocol's simplest environment: two tools, echo_message and
echo_with_length, reached through step or MCP tools/call. Handy to check that
an envhost installation answers." "")
envhost_package_plugin(coding_env "coding_env environment for envhost"
  "An OpenEnv environment that runs Python code submitted by the agent, each
session in its own sandbox (user, pid, network and mount namespaces and
resource limits)." ", python3")

set(CPACK_COMPONENTS_ALL ${_components})
include(CPack)
