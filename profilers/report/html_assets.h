// The HTML report's page skeleton, styles and script (profilers/report/html/),
// compiled in by the genrule //profilers/report:html_assets_cc.
#ifndef GRAPHPROF_PROFILERS_REPORT_HTML_ASSETS_H_
#define GRAPHPROF_PROFILERS_REPORT_HTML_ASSETS_H_

namespace graphprof::html {

// template.html: placeholders {{TITLE}}, /*{{STYLE}}*/, /*{{SCRIPT}}*/, {{DATA}}.
extern const char kTemplate[];
extern const char kStyle[];   // report.css
extern const char kScript[];  // report.js

}  // namespace graphprof::html

#endif  // GRAPHPROF_PROFILERS_REPORT_HTML_ASSETS_H_
