# cmake -DOUT=<file> -DHTML=<dir> -P embed_html.cmake: writes the C++ source
# that embeds the HTML report's template, style and script (the same text as
# //profilers/report:html_assets_cc).
file(READ "${HTML}/template.html" _template)
file(READ "${HTML}/report.css" _style)
# The script: the files html/scripts.txt lists, in order, inside one function.
file(STRINGS "${HTML}/scripts.txt" _names REGEX "^[^#]")
set(_script "(function () {\n  'use strict';\n")
foreach(_name IN LISTS _names)
  file(READ "${HTML}/${_name}" _part)
  string(APPEND _script "${_part}")
endforeach()
string(APPEND _script "})();\n")
file(WRITE "${OUT}.tmp"
  "// Generated from profilers/report/html/ by cmake/embed_html.cmake.\n"
  "#include \"profilers/report/html_assets.h\"\n"
  "namespace graphprof::html {\n"
  "const char kTemplate[] = R\"graphprof(${_template})graphprof\";\n"
  "const char kStyle[] = R\"graphprof(${_style})graphprof\";\n"
  "const char kScript[] = R\"graphprof(${_script})graphprof\";\n"
  "}  // namespace graphprof::html\n")
file(RENAME "${OUT}.tmp" "${OUT}")
