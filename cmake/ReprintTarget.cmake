# reprint_target(<target>): the house compile settings for Reprint's own code.
# Warnings are errors when REPRINT_WERROR is on (the ci and dev presets; never a user's
# default build); third-party headers come in as SYSTEM so that
# their warnings are not ours.
function(reprint_target target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 at -O2 inlines Boost.Asio 1.74's awaitable frame allocator (a recycling
  # ::operator new behind a class operator delete) and reports a false
  # -Wmismatched-new-delete in every coroutine of ours.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-mismatched-new-delete)
  endif()
  # GCC 12 at -O3 reports a false -Wrestrict inside libstdc++ wherever a short literal
  # meets a std::string (`"b" + std::to_string(id)`, even `name = "m"`): GCC bug 105329,
  # fixed in GCC 13. The ci preset builds at -O3 so that any other -O3 warning is seen.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(REPRINT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_definitions(${target} PRIVATE QT_NO_KEYWORDS
                             BOOST_ASIO_NO_DEPRECATED)
endfunction()
