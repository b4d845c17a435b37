// pickle_opcodes.h: the pickle opcodes the unpickler (unpickle.h) reads,
// under the names Python's pickletools gives them (see pickletools.py for
// each one's arguments). Opcodes torch.save never writes are left out: the
// unpickler refuses them by number.
#pragma once

#include <cstdint>

namespace cifar::pickle {

enum class Op : uint8_t {
  // protocol 2+ framing
  PROTO = 0x80,  // the protocol number follows
  FRAME = 0x95,  // a frame's length follows (protocol 4+)
  STOP = '.',
  // the stack
  MARK = '(',
  POP = '0',
  POP_MARK = '1',
  DUP = '2',
  // scalars
  NONE = 'N',
  NEWTRUE = 0x88,
  NEWFALSE = 0x89,
  BININT1 = 'K',
  BININT2 = 'M',
  BININT = 'J',
  LONG1 = 0x8a,
  BINFLOAT = 'G',
  // strings and bytes: 1-, 4- and 8-byte lengths
  SHORT_BINSTRING = 'U',
  SHORT_BINUNICODE = 0x8c,
  SHORT_BINBYTES = 'C',
  BINUNICODE = 'X',
  BINBYTES = 'B',
  BINUNICODE8 = 0x8d,
  BINBYTES8 = 0x8e,
  // containers
  EMPTY_TUPLE = ')',
  TUPLE = 't',
  TUPLE1 = 0x85,
  TUPLE2 = 0x86,
  TUPLE3 = 0x87,
  EMPTY_LIST = ']',
  LIST = 'l',
  APPEND = 'a',
  APPENDS = 'e',
  EMPTY_DICT = '}',
  DICT = 'd',
  SETITEM = 's',
  SETITEMS = 'u',
  // objects
  GLOBAL = 'c',
  STACK_GLOBAL = 0x93,
  REDUCE = 'R',
  NEWOBJ = 0x81,
  BUILD = 'b',
  BINPERSID = 'Q',
  // the memo
  BINPUT = 'q',
  LONG_BINPUT = 'r',
  MEMOIZE = 0x94,
  BINGET = 'h',
  LONG_BINGET = 'j',
};

}  // namespace cifar::pickle
