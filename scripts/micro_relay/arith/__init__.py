"""TFLite Micro's integer arithmetic, in Python: multipliers computed at compile time and the numpy
fixed-point primitives the reference interpreter uses. The C runtime mirrors these in
crt/include/micro_relay/fixedpoint.h."""
