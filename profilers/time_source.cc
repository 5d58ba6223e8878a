#include "profilers/time_source.h"

namespace graphprof {

std::shared_ptr<TimeSource> DefaultTimeSource() { return std::make_shared<SteadyClock>(); }

}  // namespace graphprof
