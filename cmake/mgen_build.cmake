# Project-wide compile settings, applied per target through mgen_target_defaults().

set(MGEN_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Wunused -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 reports -Wrestrict inside libstdc++ string concatenation at -O3 (GCC bug 105651).
  list(APPEND MGEN_WARNINGS -Wno-restrict)
endif()
if(MGEN_WERROR)
  list(APPEND MGEN_WARNINGS -Werror)
endif()

if(MGEN_SANITIZE)
  string(REPLACE "," ";" _mgen_sanitizers "${MGEN_SANITIZE}")
  string(REPLACE ";" "," _mgen_sanitize_flag "${_mgen_sanitizers}")
  add_compile_options(-fsanitize=${_mgen_sanitize_flag} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_mgen_sanitize_flag})
endif()

function(mgen_target_defaults target)
  target_compile_options(${target} PRIVATE ${MGEN_WARNINGS})
endfunction()
