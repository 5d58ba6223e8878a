// The pickle of an --inputs file (a torch.save archive's data.pkl), checked
// before LibTorch's unpickler reads it.
//
// LibTorch 1.13's Unpickler trusts what it reads: opcodes that pop more
// values than its stack holds, a DICT of an odd count or a REDUCE of a
// number free or read memory that is not theirs; a storage's element count
// is believed over its record's size, and a tensor's sizes and strides over
// its storage; a list can be made to hold itself. CheckInputsPickle walks the
// opcodes as that unpickler would, over a model of its stack (kinds, tuple
// elements, storage and tensor extents), and refuses every such pickle with
// the first thing wrong in it, so that what reaches LibTorch is what
// torch.save writes: tensors (dense or quantized), numbers, bools, strings
// and None, in tuples, lists and dicts.
//
// It also rewrites three things Python writes and LibTorch 1.13 cannot read,
// so that their files load: APPEND (a one-element list, `[x]`) and SETITEM (a
// one-item dict) become MARK ... APPENDS / SETITEMS, and an integer of fewer
// than 8 bytes (LONG1, e.g. 2**40) is widened to 8.
#ifndef GRAPHPROF_IR_INPUTS_PICKLE_H_
#define GRAPHPROF_IR_INPUTS_PICKLE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof {

// Values nested deeper than this (a tuple in a list in ...) are refused:
// destroying and printing IValues recurses per level.
constexpr int kMaxInputsNesting = 100;

// The size in bytes of the archive's record `name` (e.g. "data/0"), or
// nullopt when the archive has no such record.
using RecordSize = std::function<std::optional<uint64_t>(const std::string& name)>;

// The pickle for LibTorch's Unpickler: `pickle` itself, or rewritten as said
// above. Otherwise InvalidArgument whose message completes "FILE: ...":
// "is damaged: its pickle ...", "holds a dict; positional inputs are needed",
// "holds a pickled Python object (NAME) that only Python can read, not
// inputs", "holds torch.NAME, which graphprof does not read as inputs" or
// "is pickled with protocol N; ...".
absl::StatusOr<std::string> CheckInputsPickle(absl::string_view pickle, const RecordSize& record_size);

}  // namespace graphprof

#endif  // GRAPHPROF_IR_INPUTS_PICKLE_H_
