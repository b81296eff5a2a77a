# LIGATURE_REQUIRE_ALL: every test suite is built and registered, or the configure stops.
#
# Several suites need a tool from outside the C++ build (a peer library, node, Chromium,
# nginx, python3-yaml, clang++, the Python stubs' generator). A developer's build without
# one of them still builds and leaves those suites out with a warning; the project's own
# test command (deploy/test.sh) turns this option on, so that nothing is left out there
# without a word: the configure stops naming what is missing, and the suites that could
# skip at run time (exit 77, unittest's skip) fail instead.
option(LIGATURE_REQUIRE_ALL
       "Stop the configure when any test suite would be skipped or left out" OFF)

# ligature_need(<found> <what>): <what> (a sentence naming the tool and the suites that need
# it) is missing when <found> is false.
function(ligature_need found what)
  if(found)
    return()
  endif()
  if(LIGATURE_REQUIRE_ALL)
    message(FATAL_ERROR "LIGATURE_REQUIRE_ALL: missing ${what}")
  endif()
  message(WARNING "missing ${what}")
endfunction()

# Tools the tests run (not linked), checked once here.
if(LIGATURE_REQUIRE_ALL)
  find_program(LIGATURE_CLANGXX clang++)
  ligature_need("${LIGATURE_CLANGXX}" "clang++ (package clang): layers/thread_safety")
  find_program(LIGATURE_NGINX nginx PATHS /usr/sbin)
  ligature_need("${LIGATURE_NGINX}" "nginx (package nginx): deploy/router_test, deploy/k8s_manifests_test")
  find_program(LIGATURE_CHROMIUM NAMES chromium chromium-browser)
  ligature_need("${LIGATURE_CHROMIUM}" "chromium (package chromium): web/viewer_e2e")
  execute_process(COMMAND /usr/bin/python3 -c "import grpc, google.protobuf, yaml"
                  RESULT_VARIABLE python_modules_missing OUTPUT_QUIET ERROR_QUIET)
  if(python_modules_missing)
    set(python_modules_found FALSE)
  else()
    set(python_modules_found TRUE)
  endif()
  ligature_need(${python_modules_found}
                "/usr/bin/python3 with grpc, protobuf and yaml (python3-grpcio, python3-protobuf, python3-yaml): the Python, integration and deploy suites")
endif()
