# Shared by manpage.cmake and completion.cmake (both run as `cmake -P` at build time):
# the required -D variables, a predictable environment for the program, and its help
# text. The including script sets SCRIPT (its name, for messages) and MADE (what it makes
# from the help, e.g. "man page") before including this file.

# help_require(<var>...): stops with a message naming each -D<var> that is missing.
function(help_require)
  foreach(var ${ARGN})
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "${SCRIPT}: -D${var}=... is required")
    endif()
  endforeach()
endfunction()

# HOME=~ so that defaults derived from the home directory read as "~/..." rather than the
# builder's home.
set(ENV{HOME} "~")
set(ENV{LC_ALL} C.UTF-8)
set(ENV{ASAN_OPTIONS} "detect_leaks=0")  # a sanitizer build (dev preset) runs them too

# help_text(<out> <args...>): what `${PROGRAM} <args...>` prints; a failure stops the
# build with the program's own words.
function(help_text out)
  execute_process(COMMAND "${PROGRAM}" ${ARGN}
                  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR text STREQUAL "")
    string(JOIN " " args ${ARGN})
    message(FATAL_ERROR "${SCRIPT}: `${PROGRAM} ${args}` did not print its help (exit ${rc}):\n${err}\n"
                        "The ${MADE} is made from that output; fix the program's --help first.")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
