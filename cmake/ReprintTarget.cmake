# reprint_target(<target>): the house compile settings for Reprint's own code.
# Warnings are errors (REPRINT_WERROR); third-party headers come in as SYSTEM so that
# their warnings are not ours.
function(reprint_target target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # GCC 12 at -O2 inlines Boost.Asio 1.74's awaitable frame allocator (a recycling
  # ::operator new behind a class operator delete) and reports a false
  # -Wmismatched-new-delete in every coroutine of ours.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-mismatched-new-delete)
  endif()
  if(REPRINT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_definitions(${target} PRIVATE QT_NO_KEYWORDS
                             BOOST_ASIO_NO_DEPRECATED)
endfunction()
