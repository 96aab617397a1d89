# cmake -DINPUT=file -DOUTPUT=header.hpp -DNAME=symbol -P embed_binary.cmake
# Writes `inline constexpr unsigned char NAME[] = {...};` so a binary image (the Merkle kernels'
# fatbin) travels inside the kbench binaries.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" length)
if(length EQUAL 0)
  message(FATAL_ERROR "embed_binary: ${INPUT} is empty")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUTPUT}.tmp "#pragma once\n// Generated from ${INPUT} by cmake/embed_binary.cmake.\ninline constexpr unsigned char ${NAME}[] = {\n${bytes}};\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
