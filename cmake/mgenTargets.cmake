# The installed mgen's imported targets, over the files under MGEN_PREFIX (set by
# mgenConfig.cmake from its own location). libmgen's own dependencies (Boost.Context, fmt) are
# private: programs only call its C interfaces.
if(TARGET mgen::mgen)
  return()
endif()
add_library(mgen::mgen SHARED IMPORTED)
set_target_properties(mgen::mgen PROPERTIES IMPORTED_LOCATION "${MGEN_PREFIX}/lib/libmgen.so"
                                            INTERFACE_INCLUDE_DIRECTORIES "${MGEN_PREFIX}/include")
add_library(mgen::rank STATIC IMPORTED)
set_target_properties(mgen::rank PROPERTIES IMPORTED_LOCATION "${MGEN_PREFIX}/lib/libmgen_rank.a")
add_executable(mgen::cli IMPORTED)
set_target_properties(mgen::cli PROPERTIES IMPORTED_LOCATION "${MGEN_PREFIX}/bin/mgen")
