// CheckInputsPickle (inputs_pickle.h): the Checker of pickle_checker.h.
#include "ir/inputs_pickle.h"

#include "ir/pickle_checker.h"

namespace graphprof {

absl::StatusOr<std::string> CheckInputsPickle(absl::string_view pickle, const RecordSize& record_size) {
  return pickle_internal::Checker(pickle, record_size).Run();
}

}  // namespace graphprof
