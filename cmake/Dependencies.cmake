# Every dependency is found here, and a missing one stops configuration with the Debian
# package that provides it.
include(FindPkgConfig OPTIONAL RESULT_VARIABLE _nmt_have_pkgconfig)

function(nmt_missing what package)
  message(FATAL_ERROR
    "nmt: ${what} not found. On Debian/Ubuntu: apt-get install ${package} "
    "(or run scripts/setup.sh, which installs everything).")
endfunction()

if(NOT PKG_CONFIG_FOUND)
  nmt_missing("pkg-config" "pkg-config")
endif()

# LibTorch: Debian's libtorch-dev by default; a CUDA build of LibTorch is picked up by
# putting its folder first in CMAKE_PREFIX_PATH (see README, "GPU").
find_package(Torch QUIET)
if(NOT Torch_FOUND)
  nmt_missing("LibTorch (TorchConfig.cmake)" "libtorch-dev")
endif()
message(STATUS "nmt: LibTorch from ${TORCH_INSTALL_PREFIX}")

pkg_check_modules(SENTENCEPIECE QUIET IMPORTED_TARGET sentencepiece)
if(NOT SENTENCEPIECE_FOUND)
  nmt_missing("SentencePiece (sentencepiece.pc)" "libsentencepiece-dev")
endif()

# CMake 3.30+ (Debian 13) finds Boost through its own BoostConfig.cmake, not the old FindBoost module.
if(POLICY CMP0167)
  cmake_policy(SET CMP0167 NEW)
endif()
find_package(Boost 1.71 QUIET COMPONENTS program_options)
if(NOT Boost_FOUND)
  nmt_missing("Boost.Program_options" "libboost-program-options-dev")
endif()

find_package(fmt QUIET)
if(NOT fmt_FOUND)
  nmt_missing("fmt" "libfmt-dev")
endif()

# nmt-translate's prompt: line editing and history (libedit, BSD-licensed).
pkg_check_modules(LIBEDIT QUIET IMPORTED_TARGET libedit)
if(NOT LIBEDIT_FOUND)
  nmt_missing("libedit (libedit.pc)" "libedit-dev")
endif()

find_package(Threads REQUIRED)

if(BUILD_TESTING OR NOT DEFINED BUILD_TESTING)
  find_package(doctest QUIET)
  if(NOT doctest_FOUND)
    nmt_missing("doctest" "doctest-dev")
  endif()
endif()

# Debian's Python, whose packages (python3-selenium, python3-numpy, python3-pytest) the tests and the
# Python module use, ahead of another python3 earlier on PATH (pyenv's, a venv's).
if(EXISTS /usr/bin/python3)
  set(NMT_SYSTEM_PYTHON /usr/bin/python3)
else()
  set(NMT_SYSTEM_PYTHON python3)
endif()

# The Python module (import nmt): pybind11 and Python's headers. A build that has no use for it
# (e.g. scripts/gpu-check.sh against unpacked packages) can leave it out with -DNMT_BUILD_PYTHON=OFF.
option(NMT_BUILD_PYTHON "Build the Python module nmt (needs pybind11-dev and python3-dev)" ON)
if(NMT_BUILD_PYTHON)
  set(PYBIND11_FINDPYTHON ON)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE ${NMT_SYSTEM_PYTHON} CACHE FILEPATH "the Python the module is built for")
  endif()
  find_package(Python3 QUIET COMPONENTS Interpreter Development.Module)
  find_package(pybind11 2.6 CONFIG QUIET)
  if(NOT pybind11_FOUND OR NOT Python3_Development.Module_FOUND)
    nmt_missing("pybind11 and Python's headers (pybind11Config.cmake, Python.h)" "pybind11-dev python3-dev")
  endif()
endif()

# nmt-serve: cpp-httplib for HTTP, nlohmann/json for JSON. A build that has no use for the server
# (e.g. scripts/gpu-check.sh against unpacked packages) can leave it out with -DNMT_BUILD_SERVER=OFF.
option(NMT_BUILD_SERVER "Build nmt-serve (needs libcpp-httplib-dev and nlohmann-json3-dev)" ON)
if(NMT_BUILD_SERVER)
  find_package(nlohmann_json 3.9 QUIET)
  if(NOT nlohmann_json_FOUND)
    nmt_missing("nlohmann/json (nlohmann_jsonConfig.cmake)" "nlohmann-json3-dev")
  endif()
  pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
  if(NOT HTTPLIB_FOUND)
    nmt_missing("cpp-httplib (cpp-httplib.pc)" "libcpp-httplib-dev")
  endif()
  # Its header is built with OpenSSL support, and newer ones (Debian 13's 0.18) call OpenSSL from
  # inline code: programs including it link OpenSSL themselves (libssl-dev comes with libcpp-httplib-dev).
  find_package(OpenSSL QUIET)
  if(NOT OpenSSL_FOUND)
    nmt_missing("OpenSSL" "libssl-dev")
  endif()
  add_library(nmt_httplib INTERFACE)  # the HTTP client of bench/serve_load.cpp
  target_link_libraries(nmt_httplib INTERFACE PkgConfig::HTTPLIB OpenSSL::SSL OpenSSL::Crypto)
  # nmt-serve's connections: Boost.Asio and Boost.Beast, header-only, in the Boost headers that
  # libboost-program-options-dev brings (libboost1.74-dev on Debian 12, 1.83 on Debian 13).
  find_path(NMT_BEAST_INCLUDE_DIR boost/beast.hpp HINTS ${Boost_INCLUDE_DIRS})
  if(NOT NMT_BEAST_INCLUDE_DIR)
    nmt_missing("Boost.Beast (boost/beast.hpp)" "libboost-dev")
  endif()
  find_package(Threads REQUIRED)
  add_library(nmt_asio INTERFACE)
  target_link_libraries(nmt_asio INTERFACE Boost::headers Threads::Threads)
endif()
